#pragma OPENCL FP_CONTRACT OFF
/* Multiscale fill, reconstruction: every listed pixel becomes the weighted mean of what the
 * patches covering it copy (colour, and the texture feature in the spare byte).  Each target window containing the pixel votes with its first
 * k_use candidates (see patchmatch.cl for nnf/cost); candidate k weighs
 * 256 * softness / (softness + cost_k - cost_0), so near-equal matches share the vote and
 * clearly worse ones fade out.  Integer sums and a rounded division: the result is exact.
 *
 * tidx and out cover the work area (origin (rx0, ry0), size rw x rh; see patchmatch.cl).
 *
 * With ADAPT, each candidate's copied colours (and their low pass) are read through its adaptation
 * code adapt[t * K + k] (ADAPTED, patchmatch.cl, bundled before this file), as its distance read them.
 * With XFORM, each candidate copies to its window's offset (dy, dx) what its match's window reads
 * there through its transform xf[t * K + k] (xf_read, patchmatch.cl: a resampled value with XFORM 3);
 * its low pass, the best copy and the source map take the pixel nearest it (XF_OFF).
 *
 * CONVERT_INT4 is patchmatch.cl's too.
 *
 * Defines: HALF (patch side / 2), K (list length), EMPTY (an empty slot's cost), LOW_RADIUS (the
 * split vote's low-pass radius), LOW_CHUNK (rows per work-item of low_pass), ADAPT, XFORM. */

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

/* The known pixels of row yy in the box's columns x - LOW_RADIUS .. x + LOW_RADIUS: the sum of their
 * colours, and their count in w.  hole (1 on the hole, 2 on protected pixels) covers the work
 * area; its hole and protected pixels are left out (no fill takes a protected object's colour), as
 * are pixels outside the image and, beyond the work area, the protected pixels of prot (pw x ph at
 * (px0, py0); pw 0: none). */
inline int4 known_row(__global const uchar4 *est, __global const uchar *hole, const int yy, const int x,
                      const int width, const int height, const int rx0, const int ry0, const int rw, const int rh,
                      __global const uchar *prot, const int px0, const int py0, const int pw, const int ph)
{
    int4 s = (int4)(0);
    if (yy < 0 || yy >= height) return s;
    const int ly = yy - ry0, qy = yy - py0;
    const int in_rows = ly >= 0 && ly < rh, in_prot = qy >= 0 && qy < ph;
    for (int xx = max(x - LOW_RADIUS, 0); xx <= min(x + LOW_RADIUS, width - 1); ++xx) {
        const int lx = xx - rx0, qx = xx - px0;
        if (in_rows && lx >= 0 && lx < rw && hole[ly * rw + lx] != 0) continue;
        if (in_prot && qx >= 0 && qx < pw && prot[qy * pw + qx] != 0) continue;
        s += (int4)(convert_int3(est[yy * width + xx].xyz), 1);
    }
    return s;
}

/* The low-pass map of the split vote: every pixel of its rectangle (at (lx0, ly0), lw x lh) gets
 * the rounded mean colour of the known pixels in the (2 LOW_RADIUS + 1)^2 box around it (see
 * known_row).  Work-item i runs down column lx0 + i % lw over LOW_CHUNK rows from
 * ly0 + (i / lw) * LOW_CHUNK, keeping the box's row sums in a ring: a pixel costs one row of the
 * box, not the whole box (the sums, and so the map, are the same). */
#define LOW_SIDE (2 * LOW_RADIUS + 1)
__kernel void low_pass(__global const uchar4 *est, __global const uchar *hole, __global uchar4 *low,
                       const int n, const int width, const int height, const int lx0, const int ly0, const int lw,
                       const int lh, const int rx0, const int ry0, const int rw, const int rh,
                       __global const uchar *prot, const int px0, const int py0, const int pw, const int ph)
{
    const int i = get_global_id(0);
    if (i >= n) return;
    const int x = lx0 + i % lw, y0 = ly0 + (i / lw) * LOW_CHUNK;
    const int y1 = min(y0 + LOW_CHUNK, ly0 + lh);
    int4 ring[LOW_SIDE];
    int4 total = (int4)(0);
    for (int j = 0; j < LOW_SIDE - 1; ++j) {
        ring[j] = known_row(est, hole, y0 - LOW_RADIUS + j, x, width, height, rx0, ry0, rw, rh, prot, px0, py0, pw,
                            ph);
        total += ring[j];
    }
    int j = LOW_SIDE - 1;  /* the ring's slot for the box's next row */
    for (int y = y0; y < y1; ++y) {
        ring[j] = known_row(est, hole, y + LOW_RADIUS, x, width, height, rx0, ry0, rw, rh, prot, px0, py0, pw, ph);
        total += ring[j];
        const int count = max(total.w, 1);
        low[(y - ly0) * lw + x - lx0] = (uchar4)((uchar)round_div(total.x, count), (uchar)round_div(total.y, count),
                                                 (uchar)round_div(total.z, count), 0);
        j = j == LOW_SIDE - 1 ? 0 : j + 1;  /* now the box's top row, which leaves it */
        total -= ring[j];
    }
}

/* With split set, the colour is split by frequency: the weighted mean of the copied pixels' low
 * pass (the map low_pass wrote, its rectangle at (lx0, ly0), lw wide), plus the detail (pixel minus
 * low pass) of the best-matching covering candidate (the first in the order dy, dx, k at equal
 * costs), clamped to 0..255; the feature stays the plain mean.  Averaging many slightly shifted
 * copies keeps the tones but washes texture out.  The first nsrc pixels then also get src: the
 * source pixel of that best candidate, the original pixel the fill copies there before blending. */
__kernel void vote(__global const uchar4 *est, __global const int2 *pixels,
                   __global const int *tidx, __global const int2 *nnf, __global const uint *cost,
                   __global int4 *out, __global const uchar4 *low, __global int2 *src, const int nsrc,
                   __global const int4 *adapt, __global const int *xf, __global const int4 *xtab,
                   const int n, const int width,
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
    int4 bval = (int4)(0);  /* the best copy's value */
#if ADAPT
    int4 bcode = (int4)(ADAPT_NONE);
#endif
    FOR_EACH_COVERING_TARGET(
        const uint c0 = cost[t * K];
        for (int k = 0; k < k_use; ++k) {
            const uint ck = cost[t * K + k];
            if (ck == EMPTY) continue;
            const int wk = (int)((256u * softness) / (softness + ck - c0));
            const int2 m = nnf[t * K + k];
            const int xc = XF_CODE(xf, t * K + k);
            const int2 s = m + XF_OFF(xc, dy, dx);
#if XFORM
            const int4 sv = xf_read(est, width, xtab, m.x, m.y, xc, dy, dx);
#else
            const int4 sv = CONVERT_INT4(est[s.x * width + s.y]);
#endif
#if ADAPT
            const int4 code = adapt[t * K + k];
#endif
            acc += wk * ADAPTED_I(sv, code);
            wsum += wk;
            if (split) {
                lsum += wk * ADAPTED(low[(s.x - ly0) * lw + s.y - lx0], code).xyz;
                if (ck < cmin) {
                    cmin = ck;
                    best = s;
                    bval = sv;
#if ADAPT
                    bcode = code;
#endif
                }
            }
        }
    )
    if (!split) {
        store_mean(out, p, acc, wsum, rx0, ry0, rw);
        return;
    }
    const int3 detail = ADAPTED_I(bval, bcode).xyz
                        - ADAPTED(low[(best.x - ly0) * lw + best.y - lx0], bcode).xyz;
    const int3 c = clamp((int3)(round_div(lsum.x, wsum), round_div(lsum.y, wsum), round_div(lsum.z, wsum)) + detail,
                         0, 255);
    out[(p.x - ry0) * rw + p.y - rx0] = (int4)(c, round_div(acc.w, wsum));
    if (i < nsrc) src[i] = best;
}
