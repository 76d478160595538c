#pragma OPENCL FP_CONTRACT OFF
/* Multiscale fill, gradient-domain correction: solve Laplace(x) = 0 on the hole with the
 * boundary values (est - v) * FIX on the known 4-neighbours, in fixed point (define FIX), by
 * red-black Gauss-Seidel; compose then adds round(x / FIX) to the vote v.  This carries the
 * surrounding tones into the fill (no tone blocks, no seam at the hole's edge).  Neighbours
 * outside the image, and protected ones (hole == 2), are left out (zero normal derivative
 * there).  Pixels of one colour have no 4-neighbour of their colour, so updating one colour's
 * pixels side by side equals a sequential sweep; all arithmetic is integer, so numpy
 * reproduces it bit for bit.  hole, v and x cover the work area (origin (rx0, ry0), width rw),
 * which holds every hole pixel's 4-neighbours; est is the whole image. */

inline int floor_div(const int a, const int b)  /* floor(a / b) for b > 0 */
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* floor_div(a, n) for a neighbour count n of 1 to 4: the compiler divides by each constant with
 * a multiplication, where a division by a variable takes a long sequence of instructions. */
inline int div_count(const int a, const int n)
{
    switch (n) {
    case 1: return a;
    case 2: return floor_div(a, 2);
    case 3: return floor_div(a, 3);
    default: return floor_div(a, 4);
    }
}

/* One Gauss-Seidel update of hole pixel p. */
inline void update(__global const uchar *hole, __global const uchar4 *est, __global const int4 *v,
                   __global int4 *x, const int2 p, const int width, const int height,
                   const int rx0, const int ry0, const int rw)
{
    int3 s = (int3)(0);
    int cnt = 0;
    for (int q = 0; q < 4; ++q) {
        const int y = p.x + (q == 0 ? -1 : (q == 1 ? 1 : 0));
        const int xx = p.y + (q == 2 ? -1 : (q == 3 ? 1 : 0));
        if (y < 0 || y >= height || xx < 0 || xx >= width) continue;
        const int j = (y - ry0) * rw + xx - rx0;
        const uchar m = hole[j];
        if (m == 2) continue;  /* a protected pixel: its tones are not carried into the fill */
        ++cnt;
        if (m) s += x[j].xyz;
        else s += (convert_int3(est[y * width + xx].xyz) - v[j].xyz) * FIX;
    }
    if (cnt == 0) return;  /* every neighbour left out: the pixel keeps its value */
    const int hc = cnt / 2;
    x[(p.x - ry0) * rw + p.y - rx0] = (int4)(div_count(s.x + hc, cnt), div_count(s.y + hc, cnt),
                                  div_count(s.z + hc, cnt), 0);
}

/* Half a sweep: every hole pixel of one colour (the list pixels), one work-item each (a large
 * hole's sweeps on a CPU device, two launches a sweep: see Poisson.in_tiles). */
__kernel void gauss_seidel(__global const uchar *hole, __global const uchar4 *est,
                           __global const int4 *v, __global int4 *x, __global const int2 *pixels,
                           const int n, const int width, const int height,
                           const int rx0, const int ry0, const int rw)
{
    const int i = get_global_id(0);
    if (i < n) update(hole, est, v, x, pixels[i], width, height, rx0, ry0, rw);
}

/* Half-sweeps of a large hole, ``halfs`` of them (at most ``halo``) in one launch, by overlapped
 * tiles: work-group (gx, gy) owns the square of ``tile`` x ``tile`` work-area pixels at
 * (gx tile, gy tile) and loads it with a rim of ``halo`` pixels around it into local memory
 * (``vals``: three ints a pixel, each channel a plane of side * side; ``flags``: the pixel's hole
 * code, 3 outside the work area).  There it runs the half-sweeps, colour (first + h) & 1 for the
 * h-th ((y + x) parity in image coordinates: 0 the red list's), each as the reference's.  The
 * square's outermost pixels lack neighbours and are not updated, so after h half-sweeps the values
 * are exact from h pixels inside its edge on, the owned tile's after all of them.  The owned hole
 * pixels go to x_out, which no work-group reads: the launch is race-free, and x_in and x_out change
 * places from one launch to the next (only hole pixels are read or written: the others keep their
 * values in x).  A tile without hole pixels does nothing.  A known neighbour's value (boundary value)
 * is loaded in place of x, so an update reads one value a neighbour.  Pixels outside the work area
 * are no hole pixel's neighbours inside the image, so they are left out as those outside it. */
__kernel void gauss_seidel_tiles(__global const uchar *hole, __global const uchar4 *est,
                                 __global const int4 *v, __global const int4 *x_in, __global int4 *x_out,
                                 const int width, const int halfs, const int first,
                                 const int rx0, const int ry0, const int rw, const int rh,
                                 const int tile, const int halo, __local int *vals, __local uchar *flags)
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
            const int j = wy * rw + wx;
            m = hole[j];
            if (m == 1) val = x_in[j].xyz;
            else if (m == 0) val = (convert_int3(est[(wy + ry0) * width + wx + rx0].xyz) - v[j].xyz) * FIX;
        }
        flags[i] = m;
        vals[i] = val.x;
        vals[area + i] = val.y;
        vals[2 * area + i] = val.z;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = 0; h < halfs; ++h) {
        const int c = (first + h) & 1;
        /* the square's pixels of colour c: every other one of each row */
        for (int k = lid; k < side * half_side; k += g) {
            const int ly = k / half_side, lx = 2 * (k % half_side) + ((c + base + ly) & 1), i = ly * side + lx;
            if (lx >= side - 1 || ly == 0 || lx == 0 || ly == side - 1 || flags[i] != 1) continue;
            int3 s = (int3)(0);
            int cnt = 0;
            #pragma unroll
            for (int q = 0; q < 4; ++q) {
                const int n = i + (q == 0 ? -side : (q == 1 ? side : (q == 2 ? -1 : 1)));
                if (flags[n] >= 2) continue;  /* protected, or outside the image */
                ++cnt;
                s += (int3)(vals[n], vals[area + n], vals[2 * area + n]);
            }
            if (cnt == 0) continue;  /* every neighbour left out: the pixel keeps its value */
            const int hc = cnt / 2;
            vals[i] = div_count(s.x + hc, cnt);
            vals[area + i] = div_count(s.y + hc, cnt);
            vals[2 * area + i] = div_count(s.z + hc, cnt);
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

/* Hole pixel i (at p): the vote plus the correction.  Its feature: the vote's, or with use_prior
 * the prior's (over the work area, like v), the texture expected from around the hole.  With
 * gather, result[3 i ..] also receives its source src[i] and its new value (the fill's one read). */
inline void compose_pixel(__global uchar4 *est, __global const int4 *v, __global const int4 *x, const int i,
                          const int2 p, __global const uchar *prior, const int use_prior, const int width,
                          const int rx0, const int ry0, const int rw,
                          __global const int2 *src, __global int *result, const int gather)
{
    const int j = (p.x - ry0) * rw + p.y - rx0, e = p.x * width + p.y;
    const int3 c = v[j].xyz + (int3)(floor_div(x[j].x + FIX / 2, FIX), floor_div(x[j].y + FIX / 2, FIX),
                                     floor_div(x[j].z + FIX / 2, FIX));
    const int3 k = clamp(c, 0, 255);
    /* the feature is not corrected */
    const uchar4 out = (uchar4)((uchar)k.x, (uchar)k.y, (uchar)k.z, use_prior ? prior[j] : (uchar)v[j].w);
    est[e] = out;
    if (gather) {
        const int2 s = src[i];
        result[3 * i] = s.x;
        result[3 * i + 1] = s.y;
        result[3 * i + 2] = as_int(out);
    }
}

/* Whole sweeps in one launch of one work-group (for small holes, where launches would cost
 * more than the work): the work-items share each colour's list, and a barrier separates the
 * colours, so the order of the updates, and the result, are those of the reference.  Then
 * the nhole pixels of hole_pixels are composed (as compose; the sweeps read est only outside
 * the hole). */
__kernel void gauss_seidel_sweeps(__global const uchar *hole, __global uchar4 *est,
                                  __global const int4 *v, __global int4 *x,
                                  __global const int2 *red, const int nred,
                                  __global const int2 *black, const int nblack,
                                  const int width, const int height, const int sweeps,
                                  const int rx0, const int ry0, const int rw,
                                  __global const int2 *hole_pixels, const int nhole,
                                  __global const uchar *prior, const int use_prior,
                                  __global const int2 *src, __global int *result, const int gather)
{
    const int lid = get_local_id(0), g = get_local_size(0);
    for (int s = 0; s < sweeps; ++s) {
        for (int i = lid; i < nred; i += g) update(hole, est, v, x, red[i], width, height, rx0, ry0, rw);
        barrier(CLK_GLOBAL_MEM_FENCE);
        for (int i = lid; i < nblack; i += g) update(hole, est, v, x, black[i], width, height, rx0, ry0, rw);
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
    for (int i = lid; i < nhole; i += g)
        compose_pixel(est, v, x, i, hole_pixels[i], prior, use_prior, width, rx0, ry0, rw, src, result, gather);
}

/* Compose, one work-item per hole pixel (see compose_pixel). */
__kernel void compose(__global uchar4 *est, __global const int4 *v, __global const int4 *x,
                      __global const int2 *pixels, __global const uchar *prior, const int use_prior,
                      const int n, const int width, const int rx0, const int ry0, const int rw,
                      __global const int2 *src, __global int *result, const int gather)
{
    const int i = get_global_id(0);
    if (i < n) compose_pixel(est, v, x, i, pixels[i], prior, use_prior, width, rx0, ry0, rw, src, result, gather);
}

/* The local-memory sweeps' loops over a work-item's pixels: unrolled on a GPU, which then keeps
 * the per-pixel arrays below in registers; left as loops on a CPU, where PoCL took seconds to
 * compile them unrolled at their first launch (8 s and more for the one-channel sweeps) and runs
 * them no faster.  The same results either way. */
#if CPU
#define GS_UNROLL
#else
#define GS_UNROLL _Pragma("unroll")
#endif

/* Whole sweeps in one launch of one work-group with the values in local memory (``vals``: three
 * ints a hole pixel, red then black, each channel a row of nred + nblack), for holes of up to
 * GS_K pixels of each colour a work-item: the same updates, in the same order, as the reference, so the same result.  Each work-item keeps, for its pixels (list index lid + k * g of
 * either colour), the sum of the known neighbours' boundary values (fixed during the sweeps),
 * the count of neighbours taken and the vals indices of its hole neighbours, two 16-bit indices
 * an int (found through x's spare lane, cleared again on the way out).  Then the hole is composed
 * as in gauss_seidel_sweeps.  GS_NONE: the index of no hole neighbour. */

__kernel void gauss_seidel_local(__global const uchar *hole, __global uchar4 *est,
                                 __global const int4 *v, __global int4 *x,
                                 __global const int2 *red, const int nred,
                                 __global const int2 *black, const int nblack,
                                 const int width, const int height, const int sweeps,
                                 const int rx0, const int ry0, const int rw,
                                 __global const int2 *hole_pixels, const int nhole,
                                 __global const uchar *prior, const int use_prior,
                                 __global const int2 *src, __global int *result, const int gather,
                                 __local int *vals)
{
    const int lid = get_local_id(0), g = get_local_size(0);
    const int t = nred + nblack;
    int3 bsum[2][GS_K];
    int cnt[2][GS_K];
    uint nb[2][GS_K][2];

    /* each hole pixel's vals index into x's spare lane, then its neighbours read there */
    GS_UNROLL
    for (int c = 0; c < 2; ++c)
        GS_UNROLL
        for (int k = 0; k < GS_K; ++k) {
            const int i = lid + k * g;
            if (i < (c ? nblack : nred)) {
                const int2 p = c ? black[i] : red[i];
                x[(p.x - ry0) * rw + p.y - rx0].w = c ? nred + i : i;
            }
        }
    barrier(CLK_GLOBAL_MEM_FENCE);
    GS_UNROLL
    for (int c = 0; c < 2; ++c)
        GS_UNROLL
        for (int k = 0; k < GS_K; ++k) {
            const int i = lid + k * g;
            int3 s = (int3)(0);
            int n = 0;
            uint idx[4] = {GS_NONE, GS_NONE, GS_NONE, GS_NONE};
            if (i < (c ? nblack : nred)) {
                const int2 p = c ? black[i] : red[i];
                GS_UNROLL
                for (int q = 0; q < 4; ++q) {
                    const int y = p.x + (q == 0 ? -1 : (q == 1 ? 1 : 0));
                    const int xx = p.y + (q == 2 ? -1 : (q == 3 ? 1 : 0));
                    if (y < 0 || y >= height || xx < 0 || xx >= width) continue;
                    const int j = (y - ry0) * rw + xx - rx0;
                    const uchar mk = hole[j];
                    if (mk == 2) continue;  /* a protected pixel: its tones are not carried into the fill */
                    ++n;
                    if (mk) idx[q] = (uint)x[j].w;
                    else s += (convert_int3(est[y * width + xx].xyz) - v[j].xyz) * FIX;
                }
                const int4 xv = x[(p.x - ry0) * rw + p.y - rx0];
                const int e = c ? nred + i : i;
                vals[e] = xv.x;
                vals[t + e] = xv.y;
                vals[2 * t + e] = xv.z;
            }
            bsum[c][k] = s;
            cnt[c][k] = n;
            nb[c][k][0] = idx[0] | (idx[1] << 16);
            nb[c][k][1] = idx[2] | (idx[3] << 16);
        }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    for (int s = 0; s < sweeps; ++s) {
        GS_UNROLL
        for (int c = 0; c < 2; ++c) {  /* a colour reads only the other's values */
            GS_UNROLL
            for (int k = 0; k < GS_K; ++k) {
                const int i = lid + k * g;
                if (i < (c ? nblack : nred) && cnt[c][k] > 0) {  /* with no neighbour taken it keeps its value */
                    int3 a = bsum[c][k];
                    GS_UNROLL
                    for (int q = 0; q < 4; ++q) {
                        const uint j = (nb[c][k][q >> 1] >> ((q & 1) * 16)) & GS_NONE;
                        if (j != GS_NONE) a += (int3)(vals[j], vals[t + j], vals[2 * t + j]);
                    }
                    const int n = cnt[c][k], hc = n / 2, e = c ? nred + i : i;
                    vals[e] = div_count(a.x + hc, n);
                    vals[t + e] = div_count(a.y + hc, n);
                    vals[2 * t + e] = div_count(a.z + hc, n);
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
    GS_UNROLL
    for (int c = 0; c < 2; ++c)
        GS_UNROLL
        for (int k = 0; k < GS_K; ++k) {
            const int i = lid + k * g;
            if (i < (c ? nblack : nred)) {
                const int2 p = c ? black[i] : red[i];
                const int e = c ? nred + i : i;
                x[(p.x - ry0) * rw + p.y - rx0] = (int4)(vals[e], vals[t + e], vals[2 * t + e], 0);
            }
        }
    barrier(CLK_GLOBAL_MEM_FENCE);
    for (int i = lid; i < nhole; i += g)
        compose_pixel(est, v, x, i, hole_pixels[i], prior, use_prior, width, rx0, ry0, rw, src, result, gather);
}

/* As gauss_seidel_local, one channel a work-group (vals: one int a hole pixel, red then black), for
 * holes of up to GS_KC pixels of each colour a work-item: launched with three work-groups, group ch
 * sweeps channel ch.  A channel's updates read only that channel, so the groups need not meet and
 * the result is the same.  A group touches only its channel of x: while its values are in vals, that
 * lane carries their vals indices to the neighbours.  The composition, which reads every channel,
 * is a launch of compose after this one. */
__kernel void gauss_seidel_channels(__global const uchar *hole, __global const uchar4 *est,
                                    __global const int4 *v, __global int4 *x,
                                    __global const int2 *red, const int nred,
                                    __global const int2 *black, const int nblack,
                                    const int width, const int height, const int sweeps,
                                    const int rx0, const int ry0, const int rw, __local int *vals)
{
    const int lid = get_local_id(0), g = get_local_size(0), ch = get_group_id(0);
    __global const uchar *e8 = (__global const uchar *)est;  /* a channel of est, v, x by index */
    __global const int *v1 = (__global const int *)v;
    __global int *x1 = (__global int *)x;
    int bsum[2][GS_KC];
    int cnt[2][GS_KC];
    uint nb[2][GS_KC][2];

    /* each hole pixel's value into vals, and its vals index into its place in x */
    GS_UNROLL
    for (int c = 0; c < 2; ++c)
        GS_UNROLL
        for (int k = 0; k < GS_KC; ++k) {
            const int i = lid + k * g;
            if (i < (c ? nblack : nred)) {
                const int2 p = c ? black[i] : red[i];
                const int j = 4 * ((p.x - ry0) * rw + p.y - rx0) + ch, e = c ? nred + i : i;
                vals[e] = x1[j];
                x1[j] = e;
            }
        }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    GS_UNROLL
    for (int c = 0; c < 2; ++c)
        GS_UNROLL
        for (int k = 0; k < GS_KC; ++k) {
            const int i = lid + k * g;
            int s = 0, n = 0;
            uint idx[4] = {GS_NONE, GS_NONE, GS_NONE, GS_NONE};
            if (i < (c ? nblack : nred)) {
                const int2 p = c ? black[i] : red[i];
                GS_UNROLL
                for (int q = 0; q < 4; ++q) {
                    const int y = p.x + (q == 0 ? -1 : (q == 1 ? 1 : 0));
                    const int xx = p.y + (q == 2 ? -1 : (q == 3 ? 1 : 0));
                    if (y < 0 || y >= height || xx < 0 || xx >= width) continue;
                    const int j = (y - ry0) * rw + xx - rx0;
                    const uchar mk = hole[j];
                    if (mk == 2) continue;  /* a protected pixel: its tones are not carried into the fill */
                    ++n;
                    if (mk) idx[q] = (uint)x1[4 * j + ch];
                    else s += ((int)e8[4 * (y * width + xx) + ch] - v1[4 * j + ch]) * FIX;
                }
            }
            bsum[c][k] = s;
            cnt[c][k] = n;
            nb[c][k][0] = idx[0] | (idx[1] << 16);
            nb[c][k][1] = idx[2] | (idx[3] << 16);
        }
    barrier(CLK_GLOBAL_MEM_FENCE);  /* every index read before the values are written back below */
    for (int s = 0; s < sweeps; ++s) {
        GS_UNROLL
        for (int c = 0; c < 2; ++c) {  /* a colour reads only the other's values */
            GS_UNROLL
            for (int k = 0; k < GS_KC; ++k) {
                const int i = lid + k * g;
                if (i < (c ? nblack : nred) && cnt[c][k] > 0) {  /* with no neighbour taken it keeps its value */
                    int a = bsum[c][k];
                    GS_UNROLL
                    for (int q = 0; q < 4; ++q) {
                        const uint j = (nb[c][k][q >> 1] >> ((q & 1) * 16)) & GS_NONE;
                        if (j != GS_NONE) a += vals[j];
                    }
                    const int n = cnt[c][k];
                    vals[c ? nred + i : i] = div_count(a + n / 2, n);
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
    GS_UNROLL
    for (int c = 0; c < 2; ++c)
        GS_UNROLL
        for (int k = 0; k < GS_KC; ++k) {
            const int i = lid + k * g;
            if (i < (c ? nblack : nred)) {
                const int2 p = c ? black[i] : red[i];
                x1[4 * ((p.x - ry0) * rw + p.y - rx0) + ch] = vals[c ? nred + i : i];
            }
        }
}
