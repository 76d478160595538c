#pragma OPENCL FP_CONTRACT OFF
/* Multiscale fill, reconstruction: every listed pixel becomes the weighted mean of what the
 * patches covering it copy (colour, and the texture feature in the spare byte).  Each target window containing the pixel votes with its first
 * k_use candidates (see patchmatch.cl for nnf/cost); candidate k weighs
 * 256 * softness / (softness + cost_k - cost_0), so near-equal matches share the vote and
 * clearly worse ones fade out.  Integer sums and a rounded division: the result is exact.
 *
 * tidx and out cover the work area (origin (rx0, ry0), size rw x rh; see patchmatch.cl).
 *
 * Defines: HALF (patch side / 2), K (list length), EMPTY (an empty slot's cost). */

inline int round_div(const int a, const int b)  /* floor((a + b / 2) / b), a >= 0, b > 0 */
{
    return (a + b / 2) / b;
}

/* Store the rounded mean acc / wsum of pixel p into the work area's out. */
inline void store_mean(__global int4 *out, const int2 p, const int4 acc, const int wsum,
                       const int rx0, const int ry0, const int rw)
{
    out[(p.x - ry0) * rw + p.y - rx0] = (int4)(round_div(acc.x, wsum), round_div(acc.y, wsum), round_div(acc.z, wsum),
                                               round_div(acc.w, wsum));
}

/* Run the statements given for every target window covering pixel p: (dy, dx) is the pixel's
 * place in the window, t the target's index (tidx covers the work area). */
#define FOR_EACH_COVERING_TARGET(...) \
    for (int dy = -HALF; dy <= HALF; ++dy) { \
        const int ly = p.x - dy - ry0; \
        if (ly < 0 || ly >= rh) continue; \
        for (int dx = -HALF; dx <= HALF; ++dx) { \
            const int lx = p.y - dx - rx0; \
            if (lx < 0 || lx >= rw) continue; \
            const int t = tidx[ly * rw + lx]; \
            if (t < 0) continue; \
            __VA_ARGS__ \
        } \
    }

/* The low-pass map of the split vote: every pixel (lx0 + i % lw, ly0 + i / lw) of its rectangle
 * (n pixels) gets the rounded mean colour of the known pixels in the 3x3 box around it.  hole (1 on
 * the hole, 2 on protected pixels) covers the work area; its hole and protected pixels are left
 * out (no fill takes a protected object's colour), as are pixels outside the image. */
__kernel void low_pass(__global const uchar4 *est, __global const uchar *hole, __global uchar4 *low,
                       const int n, const int width, const int height, const int lx0, const int ly0, const int lw,
                       const int rx0, const int ry0, const int rw, const int rh)
{
    const int i = get_global_id(0);
    if (i >= n) return;
    const int y = ly0 + i / lw, x = lx0 + i % lw;
    int3 sum = (int3)(0);
    int count = 0;
    for (int yy = y - 1; yy <= y + 1; ++yy)
        for (int xx = x - 1; xx <= x + 1; ++xx) {
            if (yy < 0 || yy >= height || xx < 0 || xx >= width) continue;
            const int ly = yy - ry0, lx = xx - rx0;
            if (ly >= 0 && ly < rh && lx >= 0 && lx < rw && hole[ly * rw + lx] != 0) continue;
            sum += convert_int3(est[yy * width + xx].xyz);
            ++count;
        }
    count = max(count, 1);
    low[i] = (uchar4)((uchar)round_div(sum.x, count), (uchar)round_div(sum.y, count), (uchar)round_div(sum.z, count),
                      0);
}

/* With split set, the colour is split by frequency: the weighted mean of the copied pixels' low
 * pass (the map low_pass wrote, its rectangle at (lx0, ly0), lw wide), plus the detail (pixel minus
 * low pass) of the best-matching covering candidate (the first in the order dy, dx, k at equal
 * costs), clamped to 0..255; the feature stays the plain mean.  Averaging many slightly shifted
 * copies keeps the tones but washes texture out. */
__kernel void vote(__global const uchar4 *est, __global const int2 *pixels,
                   __global const int *tidx, __global const int2 *nnf, __global const uint *cost,
                   __global int4 *out, __global const uchar4 *low, const int n, const int width,
                   const int k_use, const uint softness, const int split, const int lx0, const int ly0, const int lw,
                   const int rx0, const int ry0, const int rw, const int rh)
{
    const int i = get_global_id(0);
    if (i >= n) return;
    const int2 p = pixels[i];
    int4 acc = (int4)(0);
    int3 lsum = (int3)(0);
    int wsum = 0;
    uint cmin = EMPTY;
    int2 best = (int2)(0);
    FOR_EACH_COVERING_TARGET(
        const uint c0 = cost[t * K];
        for (int k = 0; k < k_use; ++k) {
            const uint ck = cost[t * K + k];
            if (ck == EMPTY) continue;
            const int wk = (int)((256u * softness) / (softness + ck - c0));
            const int2 s = nnf[t * K + k] + (int2)(dy, dx);
            acc += wk * convert_int4(est[s.x * width + s.y]);
            wsum += wk;
            if (split) {
                lsum += wk * convert_int3(low[(s.x - ly0) * lw + s.y - lx0].xyz);
                if (ck < cmin) { cmin = ck; best = s; }
            }
        }
    )
    if (!split) {
        store_mean(out, p, acc, wsum, rx0, ry0, rw);
        return;
    }
    const int3 detail = convert_int3(est[best.x * width + best.y].xyz)
                        - convert_int3(low[(best.x - ly0) * lw + best.y - lx0].xyz);
    const int3 c = clamp((int3)(round_div(lsum.x, wsum), round_div(lsum.y, wsum), round_div(lsum.z, wsum)) + detail,
                         0, 255);
    out[(p.x - ry0) * rw + p.y - rx0] = (int4)(c, round_div(acc.w, wsum));
}

/* The sharp vote: like vote, but every candidate of every covering window weighs
 * lut[(cost - cost_min) / unit] (0 past LUT_SIZE entries), where cost_min is the smallest cost
 * among them all.  So the best-matching covering patch decides the pixel, patches within a few
 * units of it share the vote (in smooth areas, where many match about equally, they blend), and
 * worse ones drop out.  The first nsrc pixels also get src: the source pixel of that best
 * candidate (the first in the order dy, dx, k at equal costs), the original pixel the fill copies
 * there before blending.  lut (nlut entries) holds at most 256 each, so every sum fits in 32 bits. */
__kernel void vote_sharp(__global const uchar4 *est, __global const int2 *pixels,
                         __global const int *tidx, __global const int2 *nnf, __global const uint *cost,
                         __global int4 *out, __global int2 *src, __global const uint *lut,
                         const int nlut, const int n, const int nsrc, const int width, const int k_use,
                         const uint unit,
                         const int rx0, const int ry0, const int rw, const int rh)
{
    const int i = get_global_id(0);
    if (i >= n) return;
    const int2 p = pixels[i];
    uint cmin = EMPTY;
    int2 best = (int2)(-1);
    FOR_EACH_COVERING_TARGET(
        for (int k = 0; k < k_use; ++k) {
            const uint ck = cost[t * K + k];
            if (ck == EMPTY || ck >= cmin) continue;
            cmin = ck;
            best = nnf[t * K + k] + (int2)(dy, dx);
        }
    )
    int4 acc = (int4)(0);
    int wsum = 0;
    FOR_EACH_COVERING_TARGET(
        for (int k = 0; k < k_use; ++k) {
            const uint ck = cost[t * K + k];
            if (ck == EMPTY) continue;
            const uint j = (ck - cmin) / unit;
            if (j >= (uint)nlut) continue;
            const int wk = (int)lut[j];
            const int2 s = nnf[t * K + k];
            acc += wk * convert_int4(est[(s.x + dy) * width + s.y + dx]);
            wsum += wk;
        }
    )
    store_mean(out, p, acc, wsum, rx0, ry0, rw);
    if (i < nsrc) src[i] = best;
}
