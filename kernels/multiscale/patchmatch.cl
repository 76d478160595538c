#pragma OPENCL FP_CONTRACT OFF
/* Multiscale fill, nearest-neighbour search: PatchMatch over a list of targets.
 *
 * A target is a patch centre whose (2 HALF + 1)^2 window meets the hole; each keeps its K best
 * source centres sorted by SSD (nnf[i * K + k] = (y, x), cost[i * K + k]; empty slots have cost
 * EMPTY).  tidx maps a pixel of the work area (the hole's box grown to hold every target: origin
 * (rx0, ry0), size rw x rh) to its target index or -1; images are whole (width x height).  A source centre is usable when valid[] is set: its whole window is known and inside
 * the search area.  The SSD runs over the target window's in-image pixels, on the current estimate
 * est: RGB, plus FW times the squared difference of the texture feature in the spare byte (known
 * pixels are the original ones, so a source window reads original pixels); at the coarser levels
 * the lists' costs add a mean-colour term and a distance term to it (see ssd).
 * All arithmetic is integer: inpaint/methods/multiscale/reference.py reproduces every launch bit for bit.
 *
 * Random numbers come from hash32 (common/hash.cl, bundled before this file).
 *
 * With grad_w > 0 the distance also weighs the windows' grey gradients, and with ADAPT set every
 * listed match carries a colour adaptation (adapt[i * K + k]: a gain and a bias per channel, see
 * adaptation) through which its source is compared, and voted (vote.cl).  With XFORM set every listed
 * match also carries a transform (xf[i * K + k], see xf_apply): the target's offset (dy, dx) is
 * compared with the source pixel at T(dy, dx) from the match, and the best matches' transforms
 * travel with them (bxf_in, bxf_out) for the propagation.
 *
 * Defines: HALF (patch side / 2), K (list length, 1..8), FW (feature weight), EMPTY (an empty
 * slot's cost), JUMP_MAX (the longest propagation jump), VALID_BLOCK (see random_valid), GRAD_SHIFT
 * (the gradient term's scale), ADAPT (0 or 1), GAIN_MIN, GAIN_MAX, BIAS_MAX and ADAPT_NONE (the
 * adaptation's bounds and its identity code), XFORM (0 none, 1 mirrored left-right, 2 the eight mirrors
 * and quarter turns, 3 those and the resampled turns and scales of xtab) and XFORM_COUNT (how many
 * transforms it draws from), XFORM_EXACT (the codes read without resampling); the reference and
 * levels.py state them.  With XFORM 3 a candidate with a resampled transform must also be set in
 * wide (its wider window known: levels.py, wide_sources).  CPU (0 or 1): whether the device is a
 * CPU (see CONVERT_INT4). */

/* A pixel's bytes widened to ints, as convert_int4.  With CPU set, by clang's vector conversion: one
 * instruction where PoCL's convert_int4 goes byte by byte. */
#if CPU && defined(__has_builtin)
#if __has_builtin(__builtin_convertvector)
#define CONVERT_INT4(v) __builtin_convertvector((v), int4)
#endif
#endif
#ifndef CONVERT_INT4
#define CONVERT_INT4(v) convert_int4(v)
#endif

/* A source colour as adaptation code `code` reads it: per channel clamp(((gain v + 128) >> 8) + bias,
 * 0, 255), the code being gain * 256 + bias + 128; the feature is kept.  ADAPTED is the plain
 * value without ADAPT (vote.cl, bundled after this file, uses it too). */
#if ADAPT
inline int4 adapted(const int4 s, const int4 code)
{
    const int3 gain = code.xyz >> 8, bias = (code.xyz & 255) - 128;
    return (int4)(clamp(((gain * s.xyz + 128) >> 8) + bias, 0, 255), s.w);
}
#define ADAPTED(s, code) adapted(CONVERT_INT4(s), code)
#define ADAPTED_I(s, code) adapted(s, code)
#else
#define ADAPTED(s, code) CONVERT_INT4(s)
#define ADAPTED_I(s, code) (s)
#endif

/* Where a source window with transform code reads the target's offset (dy, dx).  The exact codes
 * (below XFORM_EXACT): bit 1 swaps the axes, then bit 2 negates the row and bit 4 the column offset
 * (xf_apply).  With XFORM 3 the others are read bilinearly at the matrix xtab[code] (in 1/256) times
 * (dy, dx) (xf_sample), and xf_near is the pixel nearest that sample (reference.py: transformed,
 * sample).  XF_OFF is the plain offset without XFORM, and XF_CODE an entry's code (0 without XFORM);
 * vote.cl, pyramid.cl and gradient_vote.cl, bundled after this file, use both (and xtab). */
#if XFORM
inline int2 xf_apply(const int code, const int dy, const int dx)
{
    const int a = (code & 1) ? dx : dy, b = (code & 1) ? dy : dx;
    return (int2)((code & 2) ? -a : a, (code & 4) ? -b : b);
}

inline int2 xf_near(__global const int4 *xtab, const int code, const int dy, const int dx)
{
#if XFORM == 3
    if (code >= XFORM_EXACT) {
        const int4 m = xtab[code];
        return (int2)((m.x * dy + m.y * dx + 128) >> 8, (m.z * dy + m.w * dx + 128) >> 8);
    }
#endif
    return xf_apply(code, dy, dx);
}

/* What the source window at (sy, sx) with transform code copies to the target's offset (dy, dx). */
inline int4 xf_read(__global const uchar4 *img, const int width, __global const int4 *xtab, const int sy,
                    const int sx, const int code, const int dy, const int dx)
{
#if XFORM == 3
    if (code >= XFORM_EXACT) {  /* bilinear, weights in 1/256; a neighbour of weight 0 is not read */
        const int4 m = xtab[code];
        const int fy = sy * 256 + m.x * dy + m.y * dx, fx = sx * 256 + m.z * dy + m.w * dx;
        const int iy = fy >> 8, ix = fx >> 8, wy = fy & 255, wx = fx & 255;
        const int iy1 = iy + (wy > 0), ix1 = ix + (wx > 0);
        const int4 top = CONVERT_INT4(img[iy * width + ix]) * (256 - wx) + CONVERT_INT4(img[iy * width + ix1]) * wx;
        const int4 bottom = CONVERT_INT4(img[iy1 * width + ix]) * (256 - wx) + CONVERT_INT4(img[iy1 * width + ix1]) * wx;
        return (top * (256 - wy) + bottom * wy + 32768) >> 16;
    }
#endif
    const int2 o = xf_apply(code, dy, dx);
    return CONVERT_INT4(img[(sy + o.x) * width + sx + o.y]);
}
#define XF_OFF(code, dy, dx) xf_near(xtab, code, dy, dx)
#define XF_CODE(xf, j) ((xf)[j])
#else
#define XF_OFF(code, dy, dx) ((int2)((dy), (dx)))
#define XF_CODE(xf, j) 0
#endif

/* Distance of the target window at (ty, tx) to the source window at (sy, sx), over the target
 * window's rows dy0..dy1 and columns dx0..dx1 (its part inside the image): the SSD, plus
 * mean_w / 4 times the window's pixel count times the squared difference of the two windows'
 * mean colours (rounded down); ssd adds near_w times the distance between the two centres.
 * With with_grad, each pair of horizontal or vertical neighbours adds
 * (grad_w * (e1 - e0)^2) >> GRAD_SHIFT, e the grey (r + g + b) difference of target and source
 * at a pixel: the squared difference of the windows' grey gradients.  With ADAPT the source's
 * colours are read through code (see adapted).
 * Stops after the first row whose partial SSD exceeds lim and returns it (such a candidate never
 * enters the list, exactly as with its full distance: nothing is added to the list at lim or
 * above). */
#define SIDE (2 * HALF + 1)
#if !XFORM
/* A row's share of the distance without the gradient term (ssd_with), its squares summed per channel
 * first (a row's sums fit ints, and the total is the same); a whole row, as nearly every target's
 * are, runs with constant bounds, unrolled: vector arithmetic on a CPU, and on a GPU a row's loads in
 * flight together (a small level's PatchMatch waits on them: 13 % less of its time on an H200). */
#define ROW_PIXEL \
    const int4 d = CONVERT_INT4(trow[dx]) - ADAPTED(srow[dx], code); \
    sq += d * d; \
    if (with_mean) *sum += d.xyz;
inline uint ssd_row(const uchar4 *trow, __global const uchar4 *srow, const int dx0, const int dx1, const int4 code,
                    const int with_mean, int3 *sum)
{
    int4 sq = (int4)(0);
    if (dx0 == -HALF && dx1 == HALF) {
#pragma unroll
        for (int dx = -HALF; dx <= HALF; ++dx) { ROW_PIXEL }
    } else {
        for (int dx = dx0; dx <= dx1; ++dx) { ROW_PIXEL }
    }
    return (uint)(sq.x + sq.y + sq.z + FW * sq.w);
}
#endif

inline uint ssd_with(__global const uchar4 *est, const int width, const int dy0, const int dy1, const int dx0,
                     const int dx1, const int sy, const int sx, const uint lim, const uchar4 *tw, const uint mean_w,
                     const int with_mean, const uint grad_w, const int with_grad, const int4 code, const int xc,
                     __global const int4 *xtab)
{
    uint acc = 0;
    int3 sum = (int3)(0);
    int above[SIDE], left = 0;  /* the grey differences of the row above and of the pixel to the left */
    for (int dy = dy0; dy <= dy1; ++dy) {
        const uchar4 *trow = tw + (dy + HALF) * SIDE + HALF;
#if !XFORM
        __global const uchar4 *srow = est + (sy + dy) * width + sx;
#endif
#if !XFORM
        if (!with_grad) {
            acc += ssd_row(trow, srow, dx0, dx1, code, with_mean, &sum);
            if (acc > lim) return acc;
            continue;
        }
#endif
        for (int dx = dx0; dx <= dx1; ++dx) {
#if XFORM
            const int4 d = CONVERT_INT4(trow[dx]) - ADAPTED_I(xf_read(est, width, xtab, sy, sx, xc, dy, dx), code);
#else
            const int4 d = CONVERT_INT4(trow[dx]) - ADAPTED(srow[dx], code);
#endif
            acc += (uint)(d.x * d.x + d.y * d.y + d.z * d.z + FW * d.w * d.w);
            if (with_mean) sum += d.xyz;
            if (with_grad) {
                const int e = d.x + d.y + d.z;
                if (dx > dx0) acc += (grad_w * (uint)((e - left) * (e - left))) >> GRAD_SHIFT;
                if (dy > dy0) acc += (grad_w * (uint)((e - above[dx + HALF]) * (e - above[dx + HALF]))) >> GRAD_SHIFT;
                left = above[dx + HALF] = e;
            }
        }
        if (acc > lim) return acc;
    }
    if (with_mean) {  /* (sum / count)^2 * count * mean_w / 4, in 64 bits */
        const long count = (long)(dy1 - dy0 + 1) * (dx1 - dx0 + 1);
        const long sq = (long)sum.x * sum.x + (long)sum.y * sum.y + (long)sum.z * sum.z;
        acc += (uint)(((long)mean_w * sq) / (4 * count));
    }
    return acc;
}

/* with_mean and with_grad are constants at each call, so the finest level's search (mean_w 0,
 * grad_w 0) keeps the plain loop, its time being most of a large photo's. */
inline uint ssd(__global const uchar4 *est, const int width, const int ty, const int tx,
                const int dy0, const int dy1, const int dx0, const int dx1,
                const int sy, const int sx, const uint lim, const uchar4 *tw, const uint mean_w, const uint near_w,
                const uint grad_w, const int4 code, const int xc, __global const int4 *xtab)
{
    /* the distance term: near_w per pixel between the two centres (|dy| + |dx|); a candidate it
     * alone puts past lim is not compared at all, and the SSD stops at what is left of lim */
    const uint near = near_w * (uint)(abs(ty - sy) + abs(tx - sx));
    if (near >= lim) return near;
    if (grad_w)
        return (mean_w ? ssd_with(est, width, dy0, dy1, dx0, dx1, sy, sx, lim - near, tw, mean_w, 1, grad_w, 1, code, xc, xtab)
                       : ssd_with(est, width, dy0, dy1, dx0, dx1, sy, sx, lim - near, tw, 0, 0, grad_w, 1, code, xc, xtab)) + near;
    return (mean_w ? ssd_with(est, width, dy0, dy1, dx0, dx1, sy, sx, lim - near, tw, mean_w, 1, 0, 0, code, xc, xtab)
                   : ssd_with(est, width, dy0, dy1, dx0, dx1, sy, sx, lim - near, tw, 0, 0, 0, 0, code, xc, xtab)) + near;
}

/* The colour adaptation of the target window to the source window at (sy, sx), over the target
 * window's in-image part (tsum: the sums of its colours there): per channel, with the source's sum
 * ss over the same pixels, the gain round(256 tsum / ss) within [GAIN_MIN, GAIN_MAX] (in 256ths)
 * and the bias round((256 tsum - gain ss) / (256 n)) within +-BIAS_MAX, n the pixel count; the
 * code gain * 256 + bias + 128 (reference.py: adaptation). */
#if ADAPT
inline int floor_div_int(const int a, const int b)  /* floor(a / b) for b > 0 */
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

inline int4 adaptation(__global const uchar4 *est, const int width, const int dy0, const int dy1, const int dx0,
                       const int dx1, const int sy, const int sx, const int3 tsum, const int xc,
                       __global const int4 *xtab)
{
    int3 ss = (int3)(0);
    for (int dy = dy0; dy <= dy1; ++dy)
        for (int dx = dx0; dx <= dx1; ++dx) {
#if XFORM
            ss += xf_read(est, width, xtab, sy, sx, xc, dy, dx).xyz;
#else
            ss += convert_int3(est[(sy + dy) * width + sx + dx].xyz);
#endif
        }
    const int n256 = 256 * (dy1 - dy0 + 1) * (dx1 - dx0 + 1);
    const int3 gain = clamp((256 * tsum + ss / 2) / max(ss, (int3)(1)), GAIN_MIN, GAIN_MAX);
    const int3 num = 256 * tsum - gain * ss + n256 / 2;
    const int3 bias = clamp((int3)(floor_div_int(num.x, n256), floor_div_int(num.y, n256), floor_div_int(num.z, n256)),
                            -BIAS_MAX, BIAS_MAX);
    return (int4)(gain * 256 + bias + 128, ADAPT_NONE);
}
#define ADAPTATION(sy, sx, xc) adaptation(est, width, dy0, dy1, dx0, dx1, sy, sx, tsum, xc, xtab)
#else
#define ADAPTATION(sy, sx, xc) ((int4)(0))
#endif

/* The part of the target window at (ty, tx) inside the image, as offset ranges. */
#define WINDOW_RANGE(ty, tx) \
    const int dy0 = max(-HALF, -(ty)), dy1 = min(HALF, height - 1 - (ty)); \
    const int dx0 = max(-HALF, -(tx)), dx1 = min(HALF, width - 1 - (tx));

/* Copy target i's window (its in-image part) and its candidate list (with ADAPT, its codes too) into
 * private memory; with ADAPT, returns the sums of the window's colours. */
inline int3 load_target(__global const uchar4 *est, __global const int2 *nnf, __global const uint *cost,
                        __global const int4 *adapt, __global const int *xf, const int i, const int width,
                        const int2 t, const int dy0, const int dy1, const int dx0, const int dx1,
                        uchar4 *tw, int2 *nb, uint *nc, int4 *na, int *nx)
{
    int3 tsum = (int3)(0);
    for (int dy = dy0; dy <= dy1; ++dy)
        for (int dx = dx0; dx <= dx1; ++dx) {
            const uchar4 c = est[(t.x + dy) * width + t.y + dx];
            tw[(dy + HALF) * SIDE + dx + HALF] = c;
            if (ADAPT) tsum += convert_int3(c.xyz);
        }
    for (int k = 0; k < K; ++k) {
        nb[k] = nnf[i * K + k];
        nc[k] = cost[i * K + k];
#if ADAPT
        na[k] = adapt[i * K + k];
#endif
#if XFORM
        nx[k] = xf[i * K + k];
#endif
    }
    return tsum;
}

/* Target i, its window's in-image range, and private copies of its window and list. */
#define TARGET_STATE(i) \
    const int2 t = targets[i]; \
    WINDOW_RANGE(t.x, t.y) \
    uchar4 tw[SIDE * SIDE]; \
    int2 nb[K]; \
    uint nc[K]; \
    int4 na[ADAPT ? K : 1]; \
    int nx[XFORM ? K : 1]; \
    nx[0] = 0; \
    const int3 tsum = load_target(est, nnf, cost, adapt, xf, i, width, t, dy0, dy1, dx0, dx1, tw, nb, nc, na, nx);

/* Store target i's candidate list (with ADAPT, its codes too). */
inline void store_target(__global int2 *nnf, __global uint *cost, __global int4 *adapt, __global int *xf,
                         const int i, const int2 *nb, const uint *nc, const int4 *na, const int *nx)
{
    for (int k = 0; k < K; ++k) {
        nnf[i * K + k] = nb[k];
        cost[i * K + k] = nc[k];
#if ADAPT
        adapt[i * K + k] = na[k];
#endif
#if XFORM
        xf[i * K + k] = nx[k];
#endif
    }
}

/* Whether the list already holds source c (with XFORM, with transform xc). */
inline int listed(const int2 *nb, const uint *nc, const int *nx, const int2 c, const int xc)
{
    for (int k = 0; k < K; ++k)
#if XFORM
        if (nc[k] != EMPTY && nb[k].x == c.x && nb[k].y == c.y && nx[k] == xc) return 1;
#else
        if (nc[k] != EMPTY && nb[k].x == c.x && nb[k].y == c.y) return 1;
#endif
    return 0;
}

/* Insert a candidate that is not listed yet: it must beat the worst entry, and it goes after
 * every entry with an SSD <= its own (with ADAPT, its code with it; with XFORM, its transform). */
inline void insert(int2 *nb, uint *nc, int4 *na, int *nx, const int2 c, const uint d, const int4 code, const int xc)
{
    if (d >= nc[K - 1]) return;
    int k = K - 1;
    while (k > 0 && nc[k - 1] > d) {
        nc[k] = nc[k - 1];
        nb[k] = nb[k - 1];
#if ADAPT
        na[k] = na[k - 1];
#endif
#if XFORM
        nx[k] = nx[k - 1];
#endif
        --k;
    }
    nc[k] = d;
    nb[k] = c;
#if ADAPT
    na[k] = code;
#endif
#if XFORM
    nx[k] = xc;
#endif
}

/* A candidate is skipped when it is outside the image, not a usable source, or already listed
 * (before any SSD is computed: in coherent regions most neighbours propose the same source). */
inline void consider(__global const uchar4 *est, __global const uchar *valid, __global const uchar *wide,
                     __global const int4 *xtab,
                     const int width, const int height, const int ty, const int tx,
                     const int dy0, const int dy1, const int dx0, const int dx1,
                     int2 *nb, uint *nc, int4 *na, int *nx, const int2 c, const int xc, const uchar4 *tw,
                     const int3 tsum, const uint mean_w, const uint near_w, const uint grad_w)
{
    if (c.x < 0 || c.x >= height || c.y < 0 || c.y >= width || !valid[c.x * width + c.y]) return;
#if XFORM == 3
    if (xc >= XFORM_EXACT && !wide[c.x * width + c.y]) return;  /* its wider window must be known */
#endif
    if (listed(nb, nc, nx, c, xc)) return;
    /* (with ADAPT, a candidate the distance term alone rules out costs no adaptation either) */
    if (ADAPT && near_w * (uint)(abs(ty - c.x) + abs(tx - c.y)) >= nc[K - 1]) return;
    const int4 code = ADAPTATION(c.x, c.y, xc);
    insert(nb, nc, na, nx, c, ssd(est, width, ty, tx, dy0, dy1, dx0, dx1, c.x, c.y, nc[K - 1], tw, mean_w, near_w,
                                  grad_w, code, xc, xtab), code, xc);
}

/* The transform a random-search candidate tries, from hash h: the current best's (current) when h's
 * low bit is set, else one of the XFORM_COUNT transforms of the setting (reference.py: random_codes). */
#if XFORM
inline int random_code(const uint h, const int current)
{
    if (h & 1u) return current;
    const int other = (int)((h >> 1) % (uint)XFORM_COUNT);
    return XFORM == 1 ? other << 2 : other;
}
#endif

/* One Jacobi-style iteration: propagation from the neighbours' best matches of the previous
 * iteration (best_in) at distances 1, 2, 4, ..., jump_max (at most JUMP_MAX), then random search around the current best
 * at radii radius, radius / 2, ..., 1.  best_out receives each target's new best.
 * With short_radius > 0 and random_start[0] == 0 (every start of the level a lifted match, see
 * pyramid.cl: lift_level) the search is the short one: short_radius and short_jump replace radius
 * and jump_max, and an iteration with short_skip set changes nothing.  With rescore set (K == 1
 * only: the best match then stays, so the neighbours' best_in are those rescore would leave) the
 * target first rescores its list as the rescore kernel does.  With XFORM a neighbour's best match s
 * with transform T (bxf_in) proposes s - T(d) with T for the target a step d away, each random
 * candidate takes random_code's transform, and bxf_out receives the new best's. */
__kernel void patchmatch(__global const uchar4 *est, __global const int2 *targets,
                         __global const int *tidx, __global const uchar *valid,
                         __global int2 *nnf, __global uint *cost,
                         __global const int2 *best_in, __global int2 *best_out,
                         const int n, const int width, const int height,
                         const int radius, const int jump_max, const uint mean_w, const uint near_w,
                         const uint grad_w, __global int4 *adapt, const uint key,
                         const int rx0, const int ry0, const int rw, const int rh,
                         __global const int *random_start, const int short_radius, const int short_jump,
                         const int short_skip, const int rescore, __global int *xf,
                         __global const int *bxf_in, __global int *bxf_out, __global const uchar *wide,
                         __global const int4 *xtab)
{
    const int i = get_global_id(0);
    if (i >= n) return;
    const int is_short = short_radius > 0 && !random_start[0];
    if (is_short && short_skip && !rescore) {
        best_out[i] = best_in[i];
#if XFORM
        bxf_out[i] = bxf_in[i];
#endif
        return;
    }
    const int r0 = is_short ? short_radius : radius, jmax = is_short ? short_jump : jump_max;
    TARGET_STATE(i)
    if (rescore)
        for (int k = 0; k < K; ++k)
            if (nc[k] != EMPTY) {
                const int4 code = ADAPTATION(nb[k].x, nb[k].y, nx[XFORM ? k : 0]);
#if ADAPT
                na[k] = code;
#endif
                nc[k] = ssd(est, width, t.x, t.y, dy0, dy1, dx0, dx1, nb[k].x, nb[k].y, EMPTY, tw, mean_w, near_w,
                            grad_w, code, nx[XFORM ? k : 0], xtab);
            }
    for (int j = 1; j <= (is_short && short_skip ? 0 : min(jmax, JUMP_MAX)); j *= 2) {
        for (int q = 0; q < 4; ++q) {
            const int dy = q == 2 ? -j : (q == 3 ? j : 0);
            const int dx = q == 0 ? -j : (q == 1 ? j : 0);
            const int ly = t.x + dy - ry0, lx = t.y + dx - rx0;
            if (ly < 0 || ly >= rh || lx < 0 || lx >= rw) continue;  /* not a target */
            const int m = tidx[ly * rw + lx];
            if (m < 0) continue;
            const int2 b = best_in[m];
            const int bc = XF_CODE(bxf_in, m);
            consider(est, valid, wide, xtab, width, height, t.x, t.y, dy0, dy1, dx0, dx1, nb, nc, na, nx, b - XF_OFF(bc, dy, dx),
                     bc, tw, tsum, mean_w, near_w, grad_w);
        }
    }
    int r = is_short && short_skip ? 0 : r0;
    uint step = 0;
    while (r >= 1) {
        const uint hy = hash32((uint)i * 747796405u + key * 7919u + step);
        const uint hx = hash32(hy);
        const uint m = (uint)(2 * r + 1);
        const int2 c = (int2)(nb[0].x + (int)(hy % m) - r, nb[0].y + (int)(hx % m) - r);
#if XFORM
        const int xc = random_code(hash32(hx), nx[0]);
#else
        const int xc = 0;
#endif
        consider(est, valid, wide, xtab, width, height, t.x, t.y, dy0, dy1, dx0, dx1, nb, nc, na, nx, c, xc, tw, tsum, mean_w,
                 near_w, grad_w);
        r /= 2;
        ++step;
    }
    store_target(nnf, cost, adapt, xf, i, nb, nc, na, nx);
    best_out[i] = nb[0];
#if XFORM
    bxf_out[i] = nx[0];
#endif
}

/* Recompute every listed candidate's distance (with ADAPT, its adaptation first) against the current
 * estimate, then sort each list by insertion (stable: equal SSDs keep their order).  best receives
 * the new best (with XFORM, bxf its transform). */
__kernel void rescore(__global const uchar4 *est, __global const int2 *targets,
                      __global int2 *nnf, __global uint *cost, __global int2 *best,
                      const int n, const int width, const int height, const uint mean_w, const uint near_w,
                      const uint grad_w, __global int4 *adapt, __global int *xf, __global int *bxf,
                      __global const int4 *xtab)
{
    const int i = get_global_id(0);
    if (i >= n) return;
    TARGET_STATE(i)
    for (int k = 0; k < K; ++k)
        if (nc[k] != EMPTY) {
            const int4 code = ADAPTATION(nb[k].x, nb[k].y, nx[XFORM ? k : 0]);
#if ADAPT
            na[k] = code;
#endif
            nc[k] = ssd(est, width, t.x, t.y, dy0, dy1, dx0, dx1, nb[k].x, nb[k].y, EMPTY, tw, mean_w, near_w, grad_w,
                        code, nx[XFORM ? k : 0], xtab);
        }
    for (int a = 1; a < K; ++a) {
        const int2 bv = nb[a];
        const uint cv = nc[a];
#if ADAPT
        const int4 av = na[a];
#endif
#if XFORM
        const int xv = nx[a];
#endif
        int b = a;
        while (b > 0 && nc[b - 1] > cv) {
            nc[b] = nc[b - 1];
            nb[b] = nb[b - 1];
#if ADAPT
            na[b] = na[b - 1];
#endif
#if XFORM
            nx[b] = nx[b - 1];
#endif
            --b;
        }
        nc[b] = cv;
        nb[b] = bv;
#if ADAPT
        na[b] = av;
#endif
#if XFORM
        nx[b] = xv;
#endif
    }
    store_target(nnf, cost, adapt, xf, i, nb, nc, na, nx);
    best[i] = nb[0];
#if XFORM
    bxf[i] = nx[0];
#endif
}

/* The k-th valid source centre (y, x) in row-major order, k = hash32(idx * 2654435761 + key) modulo
 * their number (levels.py: random_valid).  ends[b] holds the valid centres up to the end of block
 * b, the rows cut into blocks of VALID_BLOCK columns (levels.py: valid_ends): a binary search
 * finds the block, a scan of it the centre. */
inline int2 random_valid(__global const uchar *valid, __global const uint *ends, const int width, const int height,
                         const uint idx, const uint key)
{
    const int nb = (width + VALID_BLOCK - 1) / VALID_BLOCK, cells = height * nb;
    const uint k = hash32(idx * 2654435761u + key) % ends[cells - 1];
    int lo = 0, hi = cells - 1;  /* the first block whose ends exceeds k */
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (ends[mid] > k) hi = mid;
        else lo = mid + 1;
    }
    uint rank = k - (lo ? ends[lo - 1] : 0u);
    const int y = lo / nb;
    __global const uchar *row = valid + y * width;
    int x = (lo % nb) * VALID_BLOCK;
    for (;; ++x)
        if (row[x] && rank-- == 0u) break;
    return (int2)(y, x);
}

/* Start every list with one candidate, the random source random_valid(i, key), and K - 1 empty
 * slots (the first slot's cost 0 marks it as used until rescore); best[i] is the start (with XFORM,
 * untransformed: xf and bxf 0). */
__kernel void start_lists(__global const uchar *valid, __global const uint *ends, __global int2 *nnf,
                          __global uint *cost, __global int2 *best, const int n, const int width, const int height,
                          const uint key, __global int *xf, __global int *bxf)
{
    const int i = get_global_id(0);
    if (i >= n) return;
    const int2 c = random_valid(valid, ends, width, height, (uint)i, key);
    nnf[i * K] = c;
    best[i] = c;
    cost[i * K] = 0;
    for (int k = 1; k < K; ++k) {
        nnf[i * K + k] = (int2)(-1);
        cost[i * K + k] = EMPTY;
    }
#if XFORM
    for (int k = 0; k < K; ++k) xf[i * K + k] = 0;
    bxf[i] = 0;
#endif
}
