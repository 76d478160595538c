#pragma OPENCL FP_CONTRACT OFF
/* Multiscale fill, gradient-domain vote (after Darabi et al., Image Melding, 2012): the covering
 * patches vote each pixel's x and y gradient as well as its colour, and the fill f minimises
 * lambda |f - c|^2 + |grad f - g|^2 over the hole (c the corrected colour vote, g the voted
 * gradients), the known pixels around it the boundary; protected neighbours (hole == 2) and
 * neighbours outside the image are left out, as in poisson.cl.  All arithmetic is integer, so
 * numpy (inpaint/methods/multiscale/gradients.py) reproduces it bit for bit.
 *
 * gx, gy: GRAD_SCALE times the gradient of the edge to the right and lower neighbour; v, x, x0:
 * the vote, the correction (FIX units; the fill is v FIX + x) and the correction the screening
 * keeps it near.  All cover the work area (origin (rx0, ry0), size rw x rh), like tidx.
 *
 * Defines: HALF, K, EMPTY, FIX (see vote.cl and poisson.cl), GRAD_SCALE, SCREEN_DEN, and SCREEN
 * (lambda = SCREEN / SCREEN_DEN). */

inline int gv_floor_div(const int a, const int b)  /* floor(a / b) for b > 0 */
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

inline long gv_floor_div_long(const long a, const long b)  /* floor(a / b) for b > 0 */
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* Pixel i's voted gradient along edge e = (ey, ex): every window holding both the pixel and its
 * neighbour votes the difference of the two source pixels it copies there, weighted as in
 * vote.cl; with split, the copies' low-pass differences are averaged and the detail difference
 * is the best candidate's (the first in the order dy, dx, k at equal costs).  With XFORM a candidate's
 * copies of the pixel and its neighbour are what its match's window reads at their offsets through
 * its transform (xf_read, patchmatch.cl), the low pass and the best copy's pixels the ones nearest
 * them (XF_OFF). */
inline int3 gv_edge(__global const uchar4 *est, const int2 p, const int ey, const int ex,
                    __global const int *tidx, __global const int2 *nnf, __global const uint *cost,
                    __global const int *xf, __global const int4 *xtab,
                    __global const uchar4 *low, const int width, const int k_use, const uint softness,
                    const int split, const int lx0, const int ly0, const int lw,
                    const int rx0, const int ry0, const int rw, const int rh)
{
    int3 acc = (int3)(0);
    int wsum = 0;
    uint cmin = EMPTY;
    int2 best = (int2)(ly0, lx0), bq = (int2)(ly0 + ey, lx0 + ex);
    int3 bva = (int3)(0), bvb = (int3)(0);  /* the best copy's two values */
    for (int dy = -HALF; dy <= HALF - ey; ++dy) {
        const int ly = p.x - dy - ry0;
        if (ly < 0 || ly >= rh) continue;
        for (int dx = -HALF; dx <= HALF - ex; ++dx) {
            const int lx = p.y - dx - rx0;
            if (lx < 0 || lx >= rw) continue;
            const int t = tidx[ly * rw + lx];
            if (t < 0) continue;
            const uint c0 = cost[t * K];
            for (int k = 0; k < k_use; ++k) {
                const uint ck = cost[t * K + k];
                if (ck == EMPTY) continue;
                const int wk = (int)((256u * softness) / (softness + ck - c0));
                const int code = XF_CODE(xf, t * K + k);
                const int2 m = nnf[t * K + k];
                const int2 s = m + XF_OFF(code, dy, dx), q = m + XF_OFF(code, dy + ey, dx + ex);
#if XFORM
                const int3 va = xf_read(est, width, xtab, m.x, m.y, code, dy, dx).xyz;
                const int3 vb = xf_read(est, width, xtab, m.x, m.y, code, dy + ey, dx + ex).xyz;
#else
                const int3 va = convert_int3(est[s.x * width + s.y].xyz), vb = convert_int3(est[q.x * width + q.y].xyz);
#endif
                int3 d;
                if (split) {
                    d = convert_int3(low[(q.x - ly0) * lw + q.y - lx0].xyz) - convert_int3(low[(s.x - ly0) * lw + s.y - lx0].xyz);
                    if (ck < cmin) { cmin = ck; best = s; bq = q; bva = va; bvb = vb; }
                } else {
                    d = vb - va;
                }
                acc += wk * d;
                wsum += wk;
            }
        }
    }
    if (wsum == 0) return (int3)(0);
    const int h = wsum / 2;
    int3 g = (int3)(gv_floor_div(acc.x * GRAD_SCALE + h, wsum), gv_floor_div(acc.y * GRAD_SCALE + h, wsum),
                    gv_floor_div(acc.z * GRAD_SCALE + h, wsum));
    if (split) {
        const int3 detail = (bvb - convert_int3(low[(bq.x - ly0) * lw + bq.y - lx0].xyz))
                            - (bva - convert_int3(low[(best.x - ly0) * lw + best.y - lx0].xyz));
        g += detail * GRAD_SCALE;
    }
    return g;
}

/* The voted gradients of the n listed pixels (the hole and the known ring around it) into gx and
 * gy, and x0 there: x with anchor (the correction the screened solve keeps the fill near), else 0
 * (it keeps the fill near the vote itself). */
__kernel void gradient_vote(__global const uchar4 *est, __global const int2 *pixels, const int n,
                            __global const int *tidx, __global const int2 *nnf, __global const uint *cost,
                            __global const int *xf, __global const int4 *xtab, __global const uchar4 *low,
                            __global int4 *gx, __global int4 *gy,
                            __global const int4 *x, __global int4 *x0, const int anchor, const int width,
                            const int k_use, const uint softness, const int split,
                            const int lx0, const int ly0, const int lw,
                            const int rx0, const int ry0, const int rw, const int rh)
{
    const int i = get_global_id(0);
    if (i >= n) return;
    const int2 p = pixels[i];
    const int j = (p.x - ry0) * rw + p.y - rx0;
    gx[j] = (int4)(gv_edge(est, p, 0, 1, tidx, nnf, cost, xf, xtab, low, width, k_use, softness, split, lx0, ly0, lw,
                           rx0, ry0, rw, rh), 0);
    gy[j] = (int4)(gv_edge(est, p, 1, 0, tidx, nnf, cost, xf, xtab, low, width, k_use, softness, split, lx0, ly0, lw,
                           rx0, ry0, rw, rh), 0);
    x0[j] = anchor ? x[j] : (int4)(0);
}

/* One Gauss-Seidel update of hole pixel p (see gradients.py: screened_sweeps). */
inline void gv_update(__global const uchar *hole, __global const uchar4 *est, __global const int4 *v,
                      __global int4 *x, __global const int4 *x0, __global const int4 *gx,
                      __global const int4 *gy, const int2 p, const int width, const int height,
                      const int rx0, const int ry0, const int rw)
{
    const int j = (p.x - ry0) * rw + p.y - rx0;
    long3 s = (long3)(0);
    int cnt = 0;
    for (int q = 0; q < 4; ++q) {
        const int dy = q == 0 ? -1 : (q == 1 ? 1 : 0), dx = q == 2 ? -1 : (q == 3 ? 1 : 0);
        const int y = p.x + dy, xx = p.y + dx;
        if (y < 0 || y >= height || xx < 0 || xx >= width) continue;
        const int jq = (y - ry0) * rw + xx - rx0;
        const uchar m = hole[jq];
        if (m == 2) continue;
        ++cnt;
        const int3 fq = m ? v[jq].xyz * FIX + x[jq].xyz : convert_int3(est[y * width + xx].xyz) * FIX;
        const int3 g = dx == 1 ? gx[j].xyz : (dx == -1 ? -gx[jq].xyz : (dy == 1 ? gy[j].xyz : -gy[jq].xyz));
        s += convert_long3(fq - g * (FIX / GRAD_SCALE));
    }
    const long den = SCREEN + (long)SCREEN_DEN * cnt;
    if (den == 0) return;
    const long3 num = (long)SCREEN * convert_long3(v[j].xyz * FIX + x0[j].xyz) + (long)SCREEN_DEN * s;
    const long hd = den / 2;
    const int3 vf = v[j].xyz * FIX;
    x[j] = (int4)((int)gv_floor_div_long(num.x + hd, den) - vf.x, (int)gv_floor_div_long(num.y + hd, den) - vf.y,
                  (int)gv_floor_div_long(num.z + hd, den) - vf.z, x[j].w);
}

/* Half-sweeps of a large hole in overlapped tiles, ``halfs`` (at most ``halo``) a launch, as
 * poisson.cl's gauss_seidel_tiles: the tile and its halo's corrections (``vals``, three ints a
 * pixel, each channel a plane) and hole codes (``flags``, 3 outside the work area) in local memory,
 * the rest (v, est, gradients, x0: fixed during the sweeps) read where they lie; the owned hole
 * pixels go to x_out.  The update is gv_update's. */
__kernel void screened_gauss_seidel_tiles(__global const uchar *hole, __global const uchar4 *est,
                                          __global const int4 *v, __global const int4 *x_in,
                                          __global int4 *x_out, __global const int4 *x0,
                                          __global const int4 *gx, __global const int4 *gy,
                                          const int width, const int halfs, const int first,
                                          const int rx0, const int ry0, const int rw, const int rh,
                                          const int tile, const int halo, __local int *vals,
                                          __local uchar *flags)
{
    const int lid = get_local_id(0), g = get_local_size(0);
    const int side = tile + 2 * halo, area = side * side, half_side = (side + 1) / 2;
    const int oy = (int)get_group_id(1) * tile - halo, ox = (int)get_group_id(0) * tile - halo;
    const int base = (oy + ry0 + ox + rx0) & 1;  /* the colour of the square's corner */
    __local int owns;  /* whether the tile holds a hole pixel */
    if (lid == 0) owns = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = lid; k < tile * tile; k += g) {
        const int wy = oy + halo + k / tile, wx = ox + halo + k % tile;
        if (wy < rh && wx < rw && hole[wy * rw + wx] == 1) owns = 1;  /* every writer stores the same */
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!owns) return;  /* the same for the whole work-group */
    for (int i = lid; i < area; i += g) {
        const int wy = oy + i / side, wx = ox + i % side;
        uchar m = 3;
        int3 val = (int3)(0);
        if (wy >= 0 && wy < rh && wx >= 0 && wx < rw) {
            m = hole[wy * rw + wx];
            if (m == 1) val = x_in[wy * rw + wx].xyz;
        }
        flags[i] = m;
        vals[i] = val.x;
        vals[area + i] = val.y;
        vals[2 * area + i] = val.z;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = 0; h < halfs; ++h) {
        const int c = (first + h) & 1;
        for (int k = lid; k < side * half_side; k += g) {
            const int ly = k / half_side, lx = 2 * (k % half_side) + ((c + base + ly) & 1), i = ly * side + lx;
            if (lx >= side - 1 || ly == 0 || lx == 0 || ly == side - 1 || flags[i] != 1) continue;
            const int j = (oy + ly) * rw + ox + lx;
            long3 s = (long3)(0);
            int cnt = 0;
            #pragma unroll
            for (int q = 0; q < 4; ++q) {
                const int dy = q == 0 ? -1 : (q == 1 ? 1 : 0), dx = q == 2 ? -1 : (q == 3 ? 1 : 0);
                const int n = i + dy * side + dx;
                const uchar m = flags[n];
                if (m >= 2) continue;  /* protected, or outside the image */
                ++cnt;
                const int jq = j + dy * rw + dx;
                const int3 fq = m ? v[jq].xyz * FIX + (int3)(vals[n], vals[area + n], vals[2 * area + n])
                                  : convert_int3(est[(oy + ly + dy + ry0) * width + ox + lx + dx + rx0].xyz) * FIX;
                const int3 gq = dx == 1 ? gx[j].xyz : (dx == -1 ? -gx[jq].xyz : (dy == 1 ? gy[j].xyz : -gy[jq].xyz));
                s += convert_long3(fq - gq * (FIX / GRAD_SCALE));
            }
            const long den = SCREEN + (long)SCREEN_DEN * cnt;
            if (den == 0) continue;
            const long3 num = (long)SCREEN * convert_long3(v[j].xyz * FIX + x0[j].xyz) + (long)SCREEN_DEN * s;
            const long hd = den / 2;
            const int3 vf = v[j].xyz * FIX;
            vals[i] = (int)gv_floor_div_long(num.x + hd, den) - vf.x;
            vals[area + i] = (int)gv_floor_div_long(num.y + hd, den) - vf.y;
            vals[2 * area + i] = (int)gv_floor_div_long(num.z + hd, den) - vf.z;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int k = lid; k < tile * tile; k += g) {
        const int ty = k / tile, tx = k % tile, wy = oy + halo + ty, wx = ox + halo + tx;
        const int i = (halo + ty) * side + halo + tx, j = wy * rw + wx;
        if (wy < rh && wx < rw && flags[i] == 1)
            x_out[j] = (int4)(vals[i], vals[area + i], vals[2 * area + i], x_in[j].w);
    }
}

/* Whole sweeps in one launch of one work-group (small holes), a barrier between the colours: the
 * same updates in the same order as the reference (pixels of one colour have no 4-neighbour of
 * their colour). */
__kernel void screened_gauss_seidel_sweeps(__global const uchar *hole, __global const uchar4 *est,
                                           __global const int4 *v, __global int4 *x, __global const int4 *x0,
                                           __global const int4 *gx, __global const int4 *gy,
                                           __global const int2 *red, const int nred,
                                           __global const int2 *black, const int nblack,
                                           const int width, const int height, const int sweeps,
                                           const int rx0, const int ry0, const int rw)
{
    const int lid = get_local_id(0), g = get_local_size(0);
    for (int s = 0; s < sweeps; ++s) {
        for (int i = lid; i < nred; i += g) gv_update(hole, est, v, x, x0, gx, gy, red[i], width, height, rx0, ry0, rw);
        barrier(CLK_GLOBAL_MEM_FENCE);
        for (int i = lid; i < nblack; i += g)
            gv_update(hole, est, v, x, x0, gx, gy, black[i], width, height, rx0, ry0, rw);
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
}
