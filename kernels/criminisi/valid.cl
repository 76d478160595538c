#pragma OPENCL FP_CONTRACT OFF
/* Stage 3: mark valid source patches.  A candidate centre is valid iff its P x P window lies
 * inside the image and holds no target pixel.  Target pixels only ever live inside the
 * original object's bounding box [bx0, bx1) x [by0, by1), so windows that miss it are valid
 * without looking at them. */
__kernel void mark_valid(__global const uchar *unknown, __global uchar *valid,
                         const int width, const int height, const int radius,
                         const int x0, const int y0, const int w, const int h,
                         const int bx0, const int by0, const int bx1, const int by1)
{
    const int gx = get_global_id(0), gy = get_global_id(1);
    if (gx >= w || gy >= h) return;
    const int cx = x0 + gx, cy = y0 + gy;
    uchar ok = cx - radius >= 0 && cy - radius >= 0 && cx + radius < width && cy + radius < height;
    if (ok && cx + radius >= bx0 && cx - radius < bx1 && cy + radius >= by0 && cy - radius < by1) {
        for (int y = cy - radius; y <= cy + radius && ok; ++y)
            for (int x = cx - radius; x <= cx + radius; ++x)
                if (unknown[y * width + x]) { ok = 0; break; }
    }
    valid[cy * width + cx] = ok;
}

/* The same rule from a count-integral (summed-area table) of the target mask:
 * sat[y * width + x] = number of target pixels in rows <= y, columns <= x.
 * Each window's target count is then four reads (O(1) whatever the patch size). */
__kernel void mark_valid_sat(__global const int *sat, __global uchar *valid,
                             const int width, const int height, const int radius,
                             const int x0, const int y0, const int w, const int h)
{
    const int gx = get_global_id(0), gy = get_global_id(1);
    if (gx >= w || gy >= h) return;
    const int cx = x0 + gx, cy = y0 + gy;
    uchar ok = cx - radius >= 0 && cy - radius >= 0 && cx + radius < width && cy + radius < height;
    if (ok) {
        const int xb = cx + radius, yb = cy + radius, xa = cx - radius - 1, ya = cy - radius - 1;
        int count = sat[yb * width + xb];
        if (ya >= 0) count -= sat[ya * width + xb];
        if (xa >= 0) count -= sat[yb * width + xa];
        if (xa >= 0 && ya >= 0) count += sat[ya * width + xa];
        ok = count == 0;
    }
    valid[cy * width + cx] = ok;
}
