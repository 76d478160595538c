#pragma OPENCL FP_CONTRACT OFF
/* Stage 8: copy the best source patch into the target patch's unknown pixels and update
 * RGB, grey, the target mask and confidence (filled pixels take C(p^)).  Source pixels are
 * all known and only unknown pixels are written, so reads and writes never overlap. */

/* Pixel (px, py) of the patch, 0 <= px, py < 2 * radius + 1. */
inline void copy_at(__global uchar4 *rgba, __global uchar *grey, __global uchar *unknown,
                    __global float *conf, __global const float *cpatch,
                    const int width, const int height, const int radius,
                    const int tx, const int ty, const int sx, const int sy, const int px, const int py)
{
    const int x = tx - radius + px, y = ty - radius + py;
    if (x < 0 || y < 0 || x >= width || y >= height) return;
    const int t = y * width + x;
    if (!unknown[t]) return;
    const int s = (sy - radius + py) * width + (sx - radius + px);
    rgba[t] = rgba[s];
    grey[t] = grey[s];
    unknown[t] = 0;
    conf[t] = cpatch[ty * width + tx];
}

__kernel void copy_patch(__global uchar4 *rgba, __global uchar *grey, __global uchar *unknown,
                         __global float *conf, __global const float *cpatch,
                         const int width, const int height, const int radius,
                         const int tx, const int ty, const int sx, const int sy)
{
    const int px = get_global_id(0), py = get_global_id(1);
    const int side = 2 * radius + 1;
    if (px >= side || py >= side) return;
    copy_at(rgba, grey, unknown, conf, cpatch, width, height, radius, tx, ty, sx, sy, px, py);
}
