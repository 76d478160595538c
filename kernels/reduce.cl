#pragma OPENCL FP_CONTRACT OFF
/* Stage 7: best-patch reduction.  argmin of the SSD map (UINT_MAX marks invalid candidates);
 * ties -> smallest index.  One work-group of REDUCE_GROUP (a power of two) work-items.
 * result[1] = index into the map or -1 when no candidate is valid, result[2] = the SSD. */
__kernel __attribute__((reqd_work_group_size(REDUCE_GROUP, 1, 1)))
void argmin_ssd(__global const uint *ssd, const int n, __global int *result)
{
    __local uint lv[REDUCE_GROUP];
    __local int li[REDUCE_GROUP];
    if (result[0] < 0) return;   /* the device-resident loop's fill is complete */
    const int lid = get_local_id(0);
    uint bv = UINT_MAX;
    int bi = -1;
    for (int k = lid; k < n; k += REDUCE_GROUP) {
        const uint v = ssd[k];
        if (v < bv) { bv = v; bi = k; }
    }
    lv[lid] = bv; li[lid] = bi;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = REDUCE_GROUP / 2; s > 0; s >>= 1) {
        if (lid < s) {
            const uint ov = lv[lid + s];
            const int oi = li[lid + s];
            if (oi >= 0 && (ov < lv[lid] || (ov == lv[lid] && (li[lid] < 0 || oi < li[lid])))) {
                lv[lid] = ov; li[lid] = oi;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        result[1] = li[0];
        result[2] = (int)lv[0];
    }
}
