#pragma OPENCL FP_CONTRACT OFF
/* Stage 6: findBestPatch.  One work-item per candidate centre in the search rectangle; each
 * computes the integer sum of squared RGB differences between the target patch (centred on
 * p^ = result[0]) and the candidate patch, over the target's known in-image pixels.  Invalid
 * candidates (stage 3) get UINT_MAX.  The SSD is exact: 3 * 255^2 * P^2 < 2^32 for P <= 145.
 *
 * Defines: PATCH (odd P), GROUP (work-group side, 8 in the paper), PRUNE (0 or 1); with
 * PRUNE = 1 also BOUND_GROUP (ssd_bound's work-group size) and BOUND_STEP (its sample spacing).
 *
 * ssd_local follows the paper's Algorithm 2: a GROUP x GROUP work-group scores neighbouring
 * candidates, so it loads the union of their windows, (P + GROUP - 1)^2 uchar4, plus the
 * target patch (P^2 uchar4) and its known labels (P^2 int) into local memory once, the
 * work-items striding by the group size so global reads are coalesced.  With GROUP = 8 that is
 * exactly the paper's Table 4: 1672 / 2952 / 4616 bytes for P = 9 / 13 / 17.
 * ssd_global reads everything from global memory (the paper's "no local memory" column).
 *
 * Pruning (PRUNE = 1, partial-distance elimination): ssd_bound first scores a sparse grid of
 * candidates (every BOUND_STEP-th row and column) and stores their smallest SSD in bound[0];
 * any achieved SSD is >= the true minimum.  The SSD kernels then stop a candidate after the
 * first patch row whose partial sum exceeds bound[0] and store that partial sum.  This is
 * exact for stage 7: a stored value > bound >= minimum can never be the argmin, a candidate
 * whose SSD equals the minimum never exceeds the bound so it is never cut (ties still go to
 * the smallest index), and the minimum itself is stored exactly.  Only entries above the
 * minimum differ from the full map.  The bound stays in global memory, so ssd_local's local
 * memory is the same with or without pruning.  Measured on PoCL (bench/results/ssd_prune.md):
 * 1.8-3.7x faster per launch with 2-4 % of the candidates scored in full; checking every
 * 2 or 3 rows, a denser sample and an 8-group ssd_bound were all slower. */

#define HALF (PATCH / 2)
#define WIN (PATCH + GROUP - 1)
#define NLOCAL (GROUP * GROUP)

#ifndef PRUNE
#define PRUNE 0
#endif

inline uint sq3(uchar4 t, uchar4 s)
{
    const int dr = (int)t.x - (int)s.x, dg = (int)t.y - (int)s.y, db = (int)t.z - (int)s.z;
    return (uint)(dr * dr + dg * dg + db * db);
}

/* SSD of the candidate centred on (cx, cy), straight from global memory; stops after the
 * first row whose partial sum exceeds lim (and returns that sum). */
inline uint ssd_at(__global const uchar4 *rgba, __global const uchar *unknown,
                   const int width, const int height, const int tx, const int ty,
                   const int cx, const int cy, const uint lim)
{
    uint acc = 0;
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
        if (acc > lim) break;
    }
    return acc;
}

#if PRUNE
/* One work-group: bound[0] = the smallest SSD over the valid candidates of the BOUND_STEP
 * grid (UINT_MAX, i.e. no pruning, when none is valid).  Each work-item prunes its own samples
 * against its running minimum, which leaves that minimum exact. */
__kernel __attribute__((reqd_work_group_size(BOUND_GROUP, 1, 1)))
void ssd_bound(__global const uchar4 *rgba, __global const uchar *unknown,
               __global const uchar *valid, __global const int *result, __global uint *bound,
               const int width, const int height,
               const int cx0, const int cy0, const int ncx, const int ncy)
{
    __local uint lv[BOUND_GROUP];
    const int lid = get_local_id(0);
    const int p = result[0];
    if (p < 0) return;   /* the device-resident loop's fill is complete (uniform per group) */
    const int ty = p / width, tx = p - ty * width;
    /* Grid points at offset BOUND_STEP / 2 so small areas still get a sample. */
    const int sx = (ncx + BOUND_STEP - 1 - BOUND_STEP / 2) / BOUND_STEP;
    const int sy = (ncy + BOUND_STEP - 1 - BOUND_STEP / 2) / BOUND_STEP;
    uint best = UINT_MAX;
    for (int k = lid; k < sx * sy; k += BOUND_GROUP) {
        const int j = k / sx, i = k - j * sx;
        const int cx = cx0 + BOUND_STEP / 2 + i * BOUND_STEP;
        const int cy = cy0 + BOUND_STEP / 2 + j * BOUND_STEP;
        if (valid[cy * width + cx])
            best = min(best, ssd_at(rgba, unknown, width, height, tx, ty, cx, cy, best));
    }
    lv[lid] = best;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = BOUND_GROUP / 2; s > 0; s >>= 1) {
        if (lid < s) lv[lid] = min(lv[lid], lv[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) bound[0] = lv[0];
}
#endif

__kernel __attribute__((reqd_work_group_size(GROUP, GROUP, 1)))
void ssd_local(__global const uchar4 *rgba, __global const uchar *unknown,
               __global const uchar *valid, __global const int *result, __global uint *ssd,
               __global const uint *bound,
               const int width, const int height,
               const int cx0, const int cy0, const int ncx, const int ncy)
{
    __local uchar4 src[WIN * WIN];
    __local uchar4 tgt[PATCH * PATCH];
    __local int lab[PATCH * PATCH];

    const int lx = get_local_id(0), ly = get_local_id(1);
    const int lid = ly * GROUP + lx;
    const int p = result[0];
    if (p < 0) return;   /* the device-resident loop's fill is complete (uniform per group) */
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
#if PRUNE
    const uint lim = bound[0];
#endif
    uint acc = UINT_MAX;
    if (valid[cy * width + cx]) {
        acc = 0;
        for (int py = 0; py < PATCH; ++py) {
            for (int px = 0; px < PATCH; ++px) {
                const int k = py * PATCH + px;
                if (lab[k]) acc += sq3(tgt[k], src[(ly + py) * WIN + lx + px]);
            }
#if PRUNE
            if (acc > lim) break;
#endif
        }
    }
    ssd[gy * ncx + gx] = acc;
}

__kernel __attribute__((reqd_work_group_size(GROUP, GROUP, 1)))
void ssd_global(__global const uchar4 *rgba, __global const uchar *unknown,
                __global const uchar *valid, __global const int *result, __global uint *ssd,
                __global const uint *bound,
                const int width, const int height,
                const int cx0, const int cy0, const int ncx, const int ncy)
{
    const int gx = get_global_id(0), gy = get_global_id(1);
    if (gx >= ncx || gy >= ncy) return;
    const int p = result[0];
    if (p < 0) return;   /* the device-resident loop's fill is complete (uniform per group) */
    const int ty = p / width, tx = p - ty * width;
    const int cx = cx0 + gx, cy = cy0 + gy;
#if PRUNE
    const uint lim = bound[0];
#else
    const uint lim = UINT_MAX;  /* never exceeded: the full SSD */
#endif
    const uint acc = valid[cy * width + cx] ? ssd_at(rgba, unknown, width, height, tx, ty, cx, cy, lim)
                                            : UINT_MAX;
    ssd[gy * ncx + gx] = acc;
}
