#pragma OPENCL FP_CONTRACT OFF
/* Multiscale fill, between levels: build the image pyramid on the device and carry a level's
 * fill up to the next finer one, so that a phone photo never crosses the bus as a whole-image
 * array more than once.
 *
 * Images are RGB plus a spare byte (uchar4, the spare byte 0), row-major; a pixel is (y, x).
 * All arithmetic is integer: inpaint/methods/multiscale/levels.py (down2, upsampled_sources, random_valid) and
 * host.py (HostLevel.lift) reproduce every launch bit for bit. */

/* est[i] = (r, g, b, 0) from packed 8-bit RGB. */
__kernel void pack_rgba(__global const uchar *rgb, __global uchar4 *est, const int n)
{
    const int i = get_global_id(0);
    if (i >= n) return;
    est[i] = (uchar4)(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2], 0);
}

/* Halve an image: each coarse pixel is the rounded mean of its 2x2 fine pixels; an odd last
 * row or column repeats (as numpy's edge padding). */
__kernel void halve(__global const uchar4 *fine, const int fw, const int fh,
                    __global uchar4 *coarse, const int cw, const int ch)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= cw || y >= ch) return;
    const int y0 = 2 * y, y1 = min(2 * y + 1, fh - 1);
    const int x0 = 2 * x, x1 = min(2 * x + 1, fw - 1);
    const uint4 s = convert_uint4(fine[y0 * fw + x0]) + convert_uint4(fine[y0 * fw + x1])
                  + convert_uint4(fine[y1 * fw + x0]) + convert_uint4(fine[y1 * fw + x1]);
    coarse[y * cw + x] = convert_uchar4((s + 2u) >> 2);
}

/* Start a level from the coarser one's result, one work-item per hole pixel and per target.
 * Every hole pixel p takes the coarse estimate at p / 2 (colour and texture feature).  Every
 * target t starts a list (as start_lists; best[i] is its start) with its coarse parent's best
 * match scaled up: c = t + 2 (cbest[parent] - t / 2), the parent looked up in the coarse level's
 * target map ctidx (origin (cx0, cy0), cw x ch); where the parent is no target or c is not a
 * valid source, the random source random_valid(i, key) (patchmatch.cl), and random_start[0] is set (it must be
 * 0 before).  With XFORM the parent's transform T (cbxf) comes along, and the offset from twice the
 * parent turns with it: c = 2 cbest[parent] + T(t - 2 (t / 2)) (a random start: transform 0); xf and
 * bxf receive the start's (a resampled transform's start must be set in wide too, see patchmatch.cl).  levels.py (upsampled_sources) and host.py (HostLevel.lift) reproduce it. */
__kernel void lift_level(__global uchar4 *est, __global const int2 *hole, const int nhole, const int width,
                         const int height, __global const uchar4 *coarse_est, const int cwidth,
                         __global const int2 *targets, const int n, __global const uchar *valid,
                         __global const uint *ends, __global const int *ctidx, __global const int2 *cbest,
                         const int cx0, const int cy0, const int cw, const int ch, const uint key,
                         __global int2 *nnf, __global uint *cost, __global int2 *best,
                         __global int *random_start, __global const int *cbxf, __global int *xf,
                         __global int *bxf, __global const uchar *wide, __global const int4 *xtab)
{
    const int i = get_global_id(0);
    if (i < nhole) {
        const int2 p = hole[i];
        est[p.x * width + p.y] = coarse_est[(p.x >> 1) * cwidth + (p.y >> 1)];
    }
    if (i >= n) return;
    const int2 t = targets[i];
    const int py = t.x >> 1, px = t.y >> 1;
    const int ly = py - cy0, lx = px - cx0;
    const int m = (ly >= 0 && ly < ch && lx >= 0 && lx < cw) ? ctidx[ly * cw + lx] : -1;
    const int2 pb = m >= 0 ? cbest[m] : (int2)(-1);
    int2 c = (int2)(-1);
    int code = m >= 0 ? XF_CODE(cbxf, m) : 0;
    if (pb.x >= 0) c = 2 * pb + XF_OFF(code, t.x - 2 * py, t.y - 2 * px);
    int usable = c.x >= 0 && c.x < height && c.y >= 0 && c.y < width && valid[c.x * width + c.y];
#if XFORM == 3
    if (usable && code >= XFORM_EXACT) usable = wide[c.x * width + c.y];  /* its wider window must be known */
#endif
    if (!usable) {
        c = random_valid(valid, ends, width, height, (uint)i, key);
        code = 0;
        atomic_or(random_start, 1);
    }
#if XFORM
    for (int k = 0; k < K; ++k) xf[i * K + k] = 0;
    xf[i * K] = code;
    bxf[i] = code;
#else
    (void)code;
#endif
    nnf[i * K] = c;
    cost[i * K] = 0;
    for (int k = 1; k < K; ++k) {
        nnf[i * K + k] = (int2)(-1);
        cost[i * K + k] = EMPTY;
    }
    best[i] = c;
}

/* Texture features (after Newson et al.): how strongly the grey level varies around a pixel, kept
 * in the spare byte so the search prefers sources as textured as what surrounds the hole, however
 * smooth the current fill is.  Only known pixels count: the hole's own feature comes from the
 * first fill and the votes.  Pass 1, edges: e = |grey(y, x+1) - grey(y, x-1)| + |grey(y+1, x) -
 * grey(y-1, x)| (grey = r + g + b) where the four neighbours lie in the image and are known,
 * EDGE_NONE (a define) elsewhere.  hole (uchar, 1 = hole) covers the box (hx0, hy0, hw x hh); outside it
 * every pixel is known. */

inline int in_hole(__global const uchar *hole, const int hx0, const int hy0, const int hw, const int hh,
                   const int y, const int x)
{
    const int ly = y - hy0, lx = x - hx0;
    return ly >= 0 && ly < hh && lx >= 0 && lx < hw && hole[ly * hw + lx];
}

inline int grey(const uchar4 c)
{
    return (int)c.x + (int)c.y + (int)c.z;
}

__kernel void edges(__global const uchar4 *est, __global ushort *e, __global const uchar *hole,
                    const int hx0, const int hy0, const int hw, const int hh, const int width, const int height)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height) return;
    ushort v = EDGE_NONE;
    if (x > 0 && x < width - 1 && y > 0 && y < height - 1
        && !in_hole(hole, hx0, hy0, hw, hh, y, x - 1) && !in_hole(hole, hx0, hy0, hw, hh, y, x + 1)
        && !in_hole(hole, hx0, hy0, hw, hh, y - 1, x) && !in_hole(hole, hx0, hy0, hw, hh, y + 1, x)) {
        const int gx = grey(est[y * width + x + 1]) - grey(est[y * width + x - 1]);
        const int gy = grey(est[(y + 1) * width + x]) - grey(est[(y - 1) * width + x]);
        v = (ushort)(abs(gx) + abs(gy));
    }
    e[y * width + x] = v;
}

/* Pass 2, features: a known pixel's feature is the mean e over the (2 FR + 1)^2 box around it
 * (the e that exist), divided by 6 and rounded, at most 255 (0 when the box holds none); a hole
 * pixel's is 0.  Defines: FR (box radius), CPU. */
__kernel void features(__global uchar4 *est, __global const ushort *e, __global const uchar *hole,
                       const int hx0, const int hy0, const int hw, const int hh, const int width, const int height)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height) return;
    uint s = 0, c = 0;
    if (!in_hole(hole, hx0, hy0, hw, hh, y, x)) {
#if CPU
        /* a box inside the image (nearly every pixel's): constant bounds and no branch, which a CPU's
         * compiler unrolls (patchmatch.cl: CPU) */
        if (x >= FR && x < width - FR && y >= FR && y < height - FR) {
            for (int dy = -FR; dy <= FR; ++dy) {
                __global const ushort *row = e + (y + dy) * width + x;
#pragma unroll
                for (int dx = -FR; dx <= FR; ++dx) {
                    const uint v = row[dx], known = v != EDGE_NONE;
                    s += known ? v : 0u;
                    c += known;
                }
            }
        } else
#endif
        for (int yy = max(y - FR, 0); yy <= min(y + FR, height - 1); ++yy)
            for (int xx = max(x - FR, 0); xx <= min(x + FR, width - 1); ++xx) {
                const uint v = e[yy * width + xx];
                if (v != EDGE_NONE) {
                    s += v;
                    ++c;
                }
            }
    }
    est[y * width + x].w = c ? (uchar)min((s + 3 * c) / (6 * c), 255u) : 0;
}

/* The texture a part of the hole expects (reference.py: texture_prior over one group of
 * texture_groups), in one work-group: a pull-push of the known pixels' texture features over the
 * rectangle (rx0, ry0) rw x rh of the photo.  Known: solve (the work area's map, origin (wx0, wy0),
 * ww wide) 0; their features are est's spare byte (level 0, whose known pixels no launch writes).
 * Pull: each level's pixel is the rounded mean of the known pixels of its 2 x 2 block below
 * (known where the block holds one), up to a single pixel; push: from the top down, each unknown
 * pixel takes the level above scaled up (reference.py: _upsample2).  Each level's values and flags
 * lie one after another in val and known (sum of the levels' sizes).  The group's hole pixels
 * (solve 1, and with table their cell's (GROUP_CELL px of the work area, tw cells a row) number
 * group) receive the result, at most 255, in prior (over the work area).  Features are never
 * negative, so the reference's floor divisions are plain ones here. */
__kernel void expected_texture(__global const uchar4 *est, const int width, __global const uchar *solve,
                               const int wx0, const int wy0, const int ww, const int rx0, const int ry0,
                               const int rw, const int rh, __global const int *table, const int tw, const int group,
                               __global int *val, __global uchar *known, __global uchar *prior)
{
    const int lid = get_local_id(0), g = get_local_size(0);
    /* level 0: the rectangle's features where known */
    for (int i = lid; i < rw * rh; i += g) {
        const int y = i / rw, x = i - y * rw;
        const int k = solve[(y + ry0 - wy0) * ww + x + rx0 - wx0] == 0;
        known[i] = (uchar)k;
        val[i] = k ? (int)est[(y + ry0) * width + x + rx0].w : 0;
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    /* pull: level l + 1 from level l, up to one pixel */
    int h = rh, w = rw, at = 0, top = 0;
    while (h > 1 || w > 1) {
        const int ch = (h + 1) / 2, cw = (w + 1) / 2, up = at + h * w;
        for (int i = lid; i < ch * cw; i += g) {
            const int cy = i / cw, cx = i - cy * cw;
            int total = 0, count = 0;
            for (int dy = 0; dy < 2; ++dy)
                for (int dx = 0; dx < 2; ++dx) {
                    const int y = 2 * cy + dy, x = 2 * cx + dx;
                    if (y < h && x < w) {
                        total += val[at + y * w + x];
                        count += known[at + y * w + x];
                    }
                }
            known[up + i] = (uchar)(count > 0);
            val[up + i] = count ? (total + count / 2) / count : 0;
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
        at = up;
        h = ch;
        w = cw;
        ++top;
    }
    /* push: from the level below the top down to level 0, each unknown pixel from the level above */
    for (int l = top - 1; l >= 0; --l) {
        int lh = rh, lw = rw, la = 0;
        for (int m = 0; m < l; ++m) {
            la += lh * lw;
            lh = (lh + 1) / 2;
            lw = (lw + 1) / 2;
        }
        const int ua = la + lh * lw, uh = (lh + 1) / 2, uw = (lw + 1) / 2;
        for (int i = lid; i < lh * lw; i += g) {
            if (known[la + i]) continue;
            const int y = i / lw, x = i - y * lw;
            const int yn = y / 2, xn = x / 2;
            const int yf = clamp(y % 2 ? yn + 1 : yn - 1, 0, uh - 1), xf = clamp(x % 2 ? xn + 1 : xn - 1, 0, uw - 1);
            const int total = 3 * (3 * val[ua + yn * uw + xn] + val[ua + yf * uw + xn])
                              + 3 * val[ua + yn * uw + xf] + val[ua + yf * uw + xf];
            val[la + i] = (total + 8) / 16;
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
    for (int i = lid; i < rw * rh; i += g) {
        const int y = i / rw, x = i - y * rw;
        const int wy = y + ry0 - wy0, wx = x + rx0 - wx0;
        if (solve[wy * ww + wx] != 1) continue;
        if (group >= 0 && table[(wy / GROUP_CELL) * tw + wx / GROUP_CELL] != group) continue;
        prior[wy * ww + wx] = (uchar)clamp(val[i], 0, 255);
    }
}
