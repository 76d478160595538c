#pragma OPENCL FP_CONTRACT OFF
/* Stage 7: best-patch reduction.  argmin of the SSD map (UINT_MAX marks invalid candidates);
 * ties -> smallest index.  result[1] = index into the map or -1 when no candidate is valid,
 * result[2] = the SSD.  Nothing is written when result[0] < 0 (no target: the device-resident
 * loop's fill is complete).
 *
 * argmin_ssd: one work-group of REDUCE_GROUP (a power of two) work-items over the whole map.
 * On a GPU a large map takes two launches instead: argmin_ssd_groups gives each work-group one
 * contiguous slice of `chunk` entries and writes its (value, index) pair, argmin_ssd_pairs
 * reduces the pairs.  Each step keeps the smaller value and, on equal values, the smaller
 * index, so both ways give the same answer. */

/* Is (v, i) better than (bv, bi)?  i < 0 marks "no candidate". */
inline int argmin_better(uint v, int i, uint bv, int bi)
{
    return i >= 0 && (bi < 0 || v < bv || (v == bv && i < bi));
}

/* Tree reduction of the work-group's pairs into lv[0], li[0]. */
inline void argmin_local(__local uint *lv, __local int *li, const int lid)
{
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = REDUCE_GROUP / 2; s > 0; s >>= 1) {
        if (lid < s && argmin_better(lv[lid + s], li[lid + s], lv[lid], li[lid])) {
            lv[lid] = lv[lid + s];
            li[lid] = li[lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* The best entry of ssd[lo, hi) seen by this work-item (indices ascend: the first wins ties). */
inline void argmin_scan(__global const uint *ssd, const int lo, const int hi, const int lid, uint *bv, int *bi)
{
    *bv = UINT_MAX;
    *bi = -1;
    for (int k = lo + lid; k < hi; k += REDUCE_GROUP) {
        const uint v = ssd[k];
        if (v < *bv) { *bv = v; *bi = k; }
    }
}

__kernel __attribute__((reqd_work_group_size(REDUCE_GROUP, 1, 1)))
void argmin_ssd(__global const uint *ssd, const int n, __global int *result)
{
    __local uint lv[REDUCE_GROUP];
    __local int li[REDUCE_GROUP];
    if (result[0] < 0) return;
    const int lid = get_local_id(0);
    uint bv;
    int bi;
    argmin_scan(ssd, 0, n, lid, &bv, &bi);
    lv[lid] = bv; li[lid] = bi;
    argmin_local(lv, li, lid);
    if (lid == 0) {
        result[1] = li[0];
        result[2] = (int)lv[0];
    }
}

__kernel __attribute__((reqd_work_group_size(REDUCE_GROUP, 1, 1)))
void argmin_ssd_groups(__global const uint *ssd, const int n, const int chunk, __global const int *result,
                       __global uint *pv, __global int *pi)
{
    __local uint lv[REDUCE_GROUP];
    __local int li[REDUCE_GROUP];
    if (result[0] < 0) return;
    const int lid = get_local_id(0), g = get_group_id(0);
    const int lo = g * chunk;
    uint bv;
    int bi;
    argmin_scan(ssd, lo, min(lo + chunk, n), lid, &bv, &bi);
    lv[lid] = bv; li[lid] = bi;
    argmin_local(lv, li, lid);
    if (lid == 0) {
        pv[g] = lv[0];
        pi[g] = li[0];
    }
}

/* The best of the `groups` (value, index) pairs into lv[0], li[0] (the whole work-group). */
inline void argmin_pairs(__global const uint *pv, __global const int *pi, const int groups, const int lid,
                         __local uint *lv, __local int *li)
{
    uint bv = UINT_MAX;
    int bi = -1;
    for (int k = lid; k < groups; k += REDUCE_GROUP) {
        if (argmin_better(pv[k], pi[k], bv, bi)) { bv = pv[k]; bi = pi[k]; }
    }
    lv[lid] = bv; li[lid] = bi;
    argmin_local(lv, li, lid);
}

__kernel __attribute__((reqd_work_group_size(REDUCE_GROUP, 1, 1)))
void argmin_ssd_pairs(__global const uint *pv, __global const int *pi, const int groups, __global int *result)
{
    __local uint lv[REDUCE_GROUP];
    __local int li[REDUCE_GROUP];
    if (result[0] < 0) return;
    const int lid = get_local_id(0);
    argmin_pairs(pv, pi, groups, lid, lv, li);
    if (lid == 0) {
        result[1] = li[0];
        result[2] = (int)lv[0];
    }
}
