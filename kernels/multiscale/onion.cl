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
 * Random numbers come from hash32 (common/hash.cl, bundled before this file), and CONVERT_INT4 from
 * patchmatch.cl (bundled before it too).
 *
 * Defines: HALF (patch side / 2), FW (feature weight; the SSD is patchmatch.cl's), EMPTY,
 * ONION_GROUP (the largest work-group of onion_search). */

/* The SSD term of window entry e (row-major over the (2 HALF + 1)^2 window) of pixel p against
 * the source window at c: 0 where the entry lies outside the image or is not known or filled yet
 * (inpaint/methods/multiscale/reference.py: masked_ssd, one entry at a time). */
inline uint ssd_entry(__global const uchar4 *est, __global const uchar *filled, const int2 p, const int2 c,
                      const int e, const int width, const int height, const int rx0, const int ry0, const int rw)
{
    const int dy = e / (2 * HALF + 1) - HALF, dx = e % (2 * HALF + 1) - HALF;
    if (p.x + dy < 0 || p.x + dy >= height || p.y + dx < 0 || p.y + dx >= width) return 0;
    if (!filled[(p.x + dy - ry0) * rw + p.y + dx - rx0]) return 0;
    const int4 d = CONVERT_INT4(est[(p.x + dy) * width + p.y + dx]) - CONVERT_INT4(est[(c.x + dy) * width + c.y + dx]);
    return (uint)(d.x * d.x + d.y * d.y + d.z * d.z + FW * d.w * d.w);
}

/* Whether c is a usable source centre. */
inline int usable(__global const uchar *valid, const int2 c, const int width, const int height)
{
    return c.x >= 0 && c.x < height && c.y >= 0 && c.y < width && valid[c.x * width + c.y];
}

/* One layer, one work-group a pixel (the group's size a power of two of at most ONION_GROUP):
 * pixel i tries R random candidates, random_valid(i * R + j, key) for j < R (patchmatch.cl,
 * bundled before this file), then the sources of its filled 8-neighbours shifted by the step to
 * it, then random candidates around its best within radius, radius / 2, ..., 1.  Each candidate
 * must be a usable source centre and beat the best so far strictly: the first R + 8 are scored
 * side by side, and the best is the first of the lowest SSD in that order; each search step's
 * SSD is summed by the whole group.  found[i] receives the best, (-1, -1) if no candidate was
 * usable. */
__kernel void onion_search(__global const uchar4 *est, __global const uchar *filled, __global const int2 *osrc,
                           __global const uchar *valid, __global const uint *ends, __global const int2 *pixels,
                           __global int2 *found, const int n, const int R, const int width, const int height,
                           const int radius, const uint key,
                           const int rx0, const int ry0, const int rw, const int rh)
{
    __local uint ld[ONION_GROUP];
    __local int lt[ONION_GROUP];
    __local int2 lc[ONION_GROUP];
    const int i = get_group_id(0), lid = get_local_id(0), g = get_local_size(0);
    if (i >= n) return;  /* (the whole group alike) */
    const int2 p = pixels[i];
    const int area = (2 * HALF + 1) * (2 * HALF + 1);
    uint bd = EMPTY;
    int bt = R + 8;
    int2 bc = (int2)(-1);
    for (int t = lid; t < R + 8; t += g) {
        int2 c;
        if (t < R) {
            c = random_valid(valid, ends, width, height, (uint)(i * R + t), key);
        } else {
            /* (-1,-1) (-1,0) (-1,1) (0,-1) (0,1) (1,-1) (1,0) (1,1), as the reference's NEIGHBOURS8 */
            const int q = t - R;
            const int dy = q < 3 ? -1 : (q < 5 ? 0 : 1);
            const int dx = q < 3 ? q - 1 : (q == 3 ? -1 : (q == 4 ? 1 : q - 6));
            const int ly = p.x + dy - ry0, lx = p.y + dx - rx0;
            if (ly < 0 || ly >= rh || lx < 0 || lx >= rw) continue;
            const int2 s = osrc[ly * rw + lx];
            if (s.x < 0) continue;
            c = (int2)(s.x - dy, s.y - dx);
        }
        if (!usable(valid, c, width, height)) continue;
        uint d = 0;
        for (int e = 0; e < area && d <= bd; ++e)  /* (a sum past bd never wins) */
            d += ssd_entry(est, filled, p, c, e, width, height, rx0, ry0, rw);
        if (d < bd) {  /* this work-item's candidates come in increasing order */
            bd = d;
            bt = t;
            bc = c;
        }
    }
    ld[lid] = bd;
    lt[lid] = bt;
    lc[lid] = bc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = g / 2; h > 0; h /= 2) {  /* the lowest SSD, the first in order among equals */
        if (lid < h && (ld[lid + h] < ld[lid] || (ld[lid + h] == ld[lid] && lt[lid + h] < lt[lid]))) {
            ld[lid] = ld[lid + h];
            lt[lid] = lt[lid + h];
            lc[lid] = lc[lid + h];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    int2 best = lc[0];
    uint bestd = ld[0];
    int r = radius;
    uint step = 0;
    while (r >= 1 && best.x >= 0) {
        const uint hy = hash32((uint)i * 747796405u + key * 7919u + step);
        const uint hx = hash32(hy);
        const uint m = (uint)(2 * r + 1);
        const int2 c = (int2)(best.x + (int)(hy % m) - r, best.y + (int)(hx % m) - r);
        if (usable(valid, c, width, height)) {
            uint d = 0;
            for (int e = lid; e < area; e += g) d += ssd_entry(est, filled, p, c, e, width, height, rx0, ry0, rw);
            barrier(CLK_LOCAL_MEM_FENCE);  /* every work-item has read the last step's sums */
            ld[lid] = d;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int h = g / 2; h > 0; h /= 2) {
                if (lid < h) ld[lid] += ld[lid + h];
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            if (ld[0] < bestd) {
                bestd = ld[0];
                best = c;
            }
        }
        r /= 2;
        ++step;
    }
    if (lid == 0) found[i] = best;
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
