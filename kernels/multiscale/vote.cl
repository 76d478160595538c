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

__kernel void vote(__global const uchar4 *est, __global const int2 *pixels,
                   __global const int *tidx, __global const int2 *nnf, __global const uint *cost,
                   __global int4 *out, const int n, const int width, const int height,
                   const int k_use, const uint softness,
                   const int rx0, const int ry0, const int rw, const int rh)
{
    const int i = get_global_id(0);
    if (i >= n) return;
    const int2 p = pixels[i];
    int4 acc = (int4)(0);
    int wsum = 0;
    FOR_EACH_COVERING_TARGET(
        const uint c0 = cost[t * K];
        for (int k = 0; k < k_use; ++k) {
            const uint ck = cost[t * K + k];
            if (ck == EMPTY) continue;
            const int wk = (int)((256u * softness) / (softness + ck - c0));
            const int2 s = nnf[t * K + k];
            acc += wk * convert_int4(est[(s.x + dy) * width + s.y + dx]);
            wsum += wk;
        }
    )
    store_mean(out, p, acc, wsum, rx0, ry0, rw);
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
