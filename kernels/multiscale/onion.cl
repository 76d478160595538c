#pragma OPENCL FP_CONTRACT OFF
/* Multiscale fill, the first fill of the coarsest level: an onion peel.  The hole is filled layer
 * by layer from its edge inwards.  Every pixel of a layer looks for the source centre whose window
 * best matches its own window on the pixels that are known or filled already, and copies the colour
 * and texture feature at that centre; so each layer continues what lies around it, and no smooth guess is handed to
 * the search that follows.
 *
 * One launch of onion_search per layer, then one of onion_apply: the pixels of a layer read only
 * earlier layers, so the order inside a launch does not matter.  filled (uchar: 1 known or filled)
 * and osrc (int2: the source a filled hole pixel copied, -1 otherwise) cover the work area (origin
 * (rx0, ry0), size rw x rh; see patchmatch.cl), which holds every window of a hole pixel.  All
 * arithmetic is integer: inpaint/methods/multiscale/reference.py (onion_search, onion_apply) reproduces both
 * kernels bit for bit.
 *
 * Random numbers come from hash32 (common/hash.cl, bundled before this file).
 *
 * Defines: HALF (patch side / 2), FW (feature weight; the SSD is patchmatch.cl's), EMPTY. */

/* SSD of the window at p against the source window at c over the window's known or filled
 * pixels inside the image; stops after a row whose partial sum exceeds lim (such a candidate
 * never wins, exactly as with its full SSD). */
inline uint masked_ssd(__global const uchar4 *est, __global const uchar *filled, const int2 p, const int2 c,
                       const int width, const int height, const int rx0, const int ry0, const int rw,
                       const uint lim)
{
    const int dy0 = max(-HALF, -p.x), dy1 = min(HALF, height - 1 - p.x);
    const int dx0 = max(-HALF, -p.y), dx1 = min(HALF, width - 1 - p.y);
    uint acc = 0;
    for (int dy = dy0; dy <= dy1; ++dy) {
        __global const uchar *frow = filled + (p.x + dy - ry0) * rw + p.y - rx0;
        __global const uchar4 *trow = est + (p.x + dy) * width + p.y;
        __global const uchar4 *srow = est + (c.x + dy) * width + c.y;
        for (int dx = dx0; dx <= dx1; ++dx) {
            if (!frow[dx]) continue;
            const int4 d = convert_int4(trow[dx]) - convert_int4(srow[dx]);
            acc += (uint)(d.x * d.x + d.y * d.y + d.z * d.z + FW * d.w * d.w);
        }
        if (acc > lim) break;
    }
    return acc;
}

/* Try candidate c for pixel p: it must be a usable source centre and beat the best strictly. */
inline void onion_consider(__global const uchar4 *est, __global const uchar *filled, __global const uchar *valid,
                           const int2 p, const int2 c, const int width, const int height,
                           const int rx0, const int ry0, const int rw, int2 *best, uint *bestd)
{
    if (c.x < 0 || c.x >= height || c.y < 0 || c.y >= width || !valid[c.x * width + c.y]) return;
    const uint d = masked_ssd(est, filled, p, c, width, height, rx0, ry0, rw, *bestd);
    if (d < *bestd) {
        *bestd = d;
        *best = c;
    }
}

/* One layer: pixel i tries R random candidates, random_valid(i * R + j, key) for j < R
 * (patchmatch.cl, bundled before this file), then the sources of its filled
 * 8-neighbours shifted by the step to it, then random candidates around its best within radius,
 * radius / 2, ..., 1.  found[i] receives the best, (-1, -1) if no candidate was usable. */
__kernel void onion_search(__global const uchar4 *est, __global const uchar *filled, __global const int2 *osrc,
                           __global const uchar *valid, __global const uint *ends, __global const int2 *pixels,
                           __global int2 *found, const int n, const int R, const int width, const int height,
                           const int radius, const uint key,
                           const int rx0, const int ry0, const int rw, const int rh)
{
    const int i = get_global_id(0);
    if (i >= n) return;
    const int2 p = pixels[i];
    int2 best = (int2)(-1);
    uint bestd = EMPTY;
    for (int j = 0; j < R; ++j)
        onion_consider(est, filled, valid, p, random_valid(valid, ends, width, height, (uint)(i * R + j), key), width,
                       height, rx0, ry0, rw, &best, &bestd);
    for (int q = 0; q < 8; ++q) {
        /* (-1,-1) (-1,0) (-1,1) (0,-1) (0,1) (1,-1) (1,0) (1,1), as the reference's NEIGHBOURS8 */
        const int dy = q < 3 ? -1 : (q < 5 ? 0 : 1);
        const int dx = q < 3 ? q - 1 : (q == 3 ? -1 : (q == 4 ? 1 : q - 6));
        const int ly = p.x + dy - ry0, lx = p.y + dx - rx0;
        if (ly < 0 || ly >= rh || lx < 0 || lx >= rw) continue;
        const int2 s = osrc[ly * rw + lx];
        if (s.x < 0) continue;
        onion_consider(est, filled, valid, p, (int2)(s.x - dy, s.y - dx), width, height, rx0, ry0, rw, &best, &bestd);
    }
    int r = radius;
    uint step = 0;
    while (r >= 1 && best.x >= 0) {
        const uint hy = hash32((uint)i * 747796405u + key * 7919u + step);
        const uint hx = hash32(hy);
        const uint m = (uint)(2 * r + 1);
        onion_consider(est, filled, valid, p, (int2)(best.x + (int)(hy % m) - r, best.y + (int)(hx % m) - r),
                       width, height, rx0, ry0, rw, &best, &bestd);
        r /= 2;
        ++step;
    }
    found[i] = best;
}

/* Fill the layer: each pixel copies the colour and texture feature at its source, records the
 * source, and counts as filled. */
__kernel void onion_apply(__global uchar4 *est, __global uchar *filled, __global int2 *osrc,
                          __global const int2 *pixels, __global const int2 *found, const int n, const int width,
                          const int rx0, const int ry0, const int rw)
{
    const int i = get_global_id(0);
    if (i >= n) return;
    const int2 p = pixels[i], s = found[i];
    const int j = (p.x - ry0) * rw + p.y - rx0, e = p.x * width + p.y;
    if (s.x >= 0) est[e] = est[s.x * width + s.y];
    osrc[j] = s;
    filled[j] = 1;
}
