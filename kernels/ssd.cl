#pragma OPENCL FP_CONTRACT OFF
/* Stage 6: findBestPatch.  One work-item per candidate centre in the search rectangle; each
 * computes the integer sum of squared RGB differences between the target patch (centred on
 * p^ = result[0]) and the candidate patch, over the target's known in-image pixels.  Invalid
 * candidates (stage 3) get UINT_MAX.  The SSD is exact: 3 * 255^2 * P^2 < 2^32 for P <= 145.
 *
 * Defines: PATCH (odd P), GROUP (work-group side, 8 in the paper).
 *
 * ssd_local follows the paper's Algorithm 2: a GROUP x GROUP work-group scores neighbouring
 * candidates, so it loads the union of their windows, (P + GROUP - 1)^2 uchar4, plus the
 * target patch (P^2 uchar4) and its known labels (P^2 int) into local memory once, the
 * work-items striding by the group size so global reads are coalesced.  With GROUP = 8 that is
 * exactly the paper's Table 4: 1672 / 2952 / 4616 bytes for P = 9 / 13 / 17.
 * ssd_global reads everything from global memory (the paper's "no local memory" column). */

#define HALF (PATCH / 2)
#define WIN (PATCH + GROUP - 1)
#define NLOCAL (GROUP * GROUP)

inline uint sq3(uchar4 t, uchar4 s)
{
    const int dr = (int)t.x - (int)s.x, dg = (int)t.y - (int)s.y, db = (int)t.z - (int)s.z;
    return (uint)(dr * dr + dg * dg + db * db);
}

__kernel __attribute__((reqd_work_group_size(GROUP, GROUP, 1)))
void ssd_local(__global const uchar4 *rgba, __global const uchar *unknown,
               __global const uchar *valid, __global const int *result, __global uint *ssd,
               const int width, const int height,
               const int cx0, const int cy0, const int ncx, const int ncy)
{
    __local uchar4 src[WIN * WIN];
    __local uchar4 tgt[PATCH * PATCH];
    __local int lab[PATCH * PATCH];

    const int lx = get_local_id(0), ly = get_local_id(1);
    const int lid = ly * GROUP + lx;
    const int p = result[0];
    const int ty = p / width, tx = p - ty * width;

    /* Union window of the group's candidates: top-left at (first centre - HALF). */
    const int wx0 = cx0 + (int)get_group_id(0) * GROUP - HALF;
    const int wy0 = cy0 + (int)get_group_id(1) * GROUP - HALF;
    for (int k = lid; k < WIN * WIN; k += NLOCAL) {
        const int wy = k / WIN, wx = k - wy * WIN;
        const int x = wx0 + wx, y = wy0 + wy;
        src[k] = (x < width && y < height) ? rgba[y * width + x] : (uchar4)(0);
    }
    for (int k = lid; k < PATCH * PATCH; k += NLOCAL) {
        const int py = k / PATCH, px = k - py * PATCH;
        const int x = tx - HALF + px, y = ty - HALF + py;
        const int in = x >= 0 && y >= 0 && x < width && y < height;
        const int known = in && !unknown[y * width + x];
        lab[k] = known;
        tgt[k] = known ? rgba[y * width + x] : (uchar4)(0);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    const int gx = get_global_id(0), gy = get_global_id(1);
    if (gx >= ncx || gy >= ncy) return;
    const int cx = cx0 + gx, cy = cy0 + gy;
    uint acc = UINT_MAX;
    if (valid[cy * width + cx]) {
        acc = 0;
        for (int py = 0; py < PATCH; ++py)
            for (int px = 0; px < PATCH; ++px) {
                const int k = py * PATCH + px;
                if (lab[k]) acc += sq3(tgt[k], src[(ly + py) * WIN + lx + px]);
            }
    }
    ssd[gy * ncx + gx] = acc;
}

__kernel __attribute__((reqd_work_group_size(GROUP, GROUP, 1)))
void ssd_global(__global const uchar4 *rgba, __global const uchar *unknown,
                __global const uchar *valid, __global const int *result, __global uint *ssd,
                const int width, const int height,
                const int cx0, const int cy0, const int ncx, const int ncy)
{
    const int gx = get_global_id(0), gy = get_global_id(1);
    if (gx >= ncx || gy >= ncy) return;
    const int p = result[0];
    const int ty = p / width, tx = p - ty * width;
    const int cx = cx0 + gx, cy = cy0 + gy;
    uint acc = UINT_MAX;
    if (valid[cy * width + cx]) {
        acc = 0;
        for (int py = 0; py < PATCH; ++py) {
            const int y = ty - HALF + py;
            if (y < 0 || y >= height) continue;
            for (int px = 0; px < PATCH; ++px) {
                const int x = tx - HALF + px;
                if (x < 0 || x >= width) continue;
                const int t = y * width + x;
                if (unknown[t]) continue;
                acc += sq3(rgba[t], rgba[(cy - HALF + py) * width + cx - HALF + px]);
            }
        }
    }
    ssd[gy * ncx + gx] = acc;
}
