#pragma OPENCL FP_CONTRACT OFF
/* Stage 8: copy the best source patch into the target patch's unknown pixels and update
 * RGB, grey, the target mask and confidence (filled pixels take C(p^)).  Source pixels are
 * all known and only unknown pixels are written, so reads and writes never overlap. */
#if RESIDENT
/* On the device-resident loop the target is result[0] and the source the result[1]-th centre
 * of the (cx0, cy0) origin, ncx-wide centre map (stages 5 and 7 left them there). */
__kernel void copy_patch(__global uchar4 *rgba, __global uchar *grey, __global uchar *unknown,
                         __global float *conf, __global const float *cpatch,
                         const int width, const int height, const int radius,
                         __global const int *result, const int cx0, const int cy0, const int ncx)
{
    const int p = result[0];
    if (p < 0) return;
    const int ty = p / width, tx = p - ty * width;
    const int ry = result[1] / ncx;
    const int sy = cy0 + ry, sx = cx0 + (result[1] - ry * ncx);
#else
__kernel void copy_patch(__global uchar4 *rgba, __global uchar *grey, __global uchar *unknown,
                         __global float *conf, __global const float *cpatch,
                         const int width, const int height, const int radius,
                         const int tx, const int ty, const int sx, const int sy)
{
#endif
    const int px = get_global_id(0), py = get_global_id(1);
    const int side = 2 * radius + 1;
    if (px >= side || py >= side) return;
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
