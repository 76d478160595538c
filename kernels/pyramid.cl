#pragma OPENCL FP_CONTRACT OFF
/* Multiscale fill, between levels: build the image pyramid on the device and carry a level's
 * fill up to the next finer one, so that a phone photo never crosses the bus as a whole-image
 * array more than once.
 *
 * Images are RGB plus a spare byte (uchar4, the spare byte 0), row-major; a pixel is (y, x).
 * All arithmetic is integer: inpaint/multiscale.py (down2, the host level's lift) reproduces
 * every launch bit for bit. */

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

/* Start a level from the coarser one's result: every hole pixel p takes the coarse estimate's
 * colour at p / 2 (its spare byte kept). */
__kernel void lift(__global uchar4 *est, __global const int2 *hole, const int n, const int width,
                   __global const uchar4 *coarse_est, const int cwidth)
{
    const int i = get_global_id(0);
    if (i >= n) return;
    const int2 p = hole[i];
    const int e = p.x * width + p.y;
    const uchar4 c = coarse_est[(p.x >> 1) * cwidth + (p.y >> 1)];
    est[e] = (uchar4)(c.x, c.y, c.z, est[e].w);
}
