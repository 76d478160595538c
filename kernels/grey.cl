#pragma OPENCL FP_CONTRACT OFF
/* Stage 1: RGB -> grey with integer BT.601 weights (exact, identical to the numpy reference).
 * grey = (77 R + 150 G + 29 B + 128) >> 8 */
__kernel void rgb_to_grey(__global const uchar4 *rgba, __global uchar *grey,
                          const int width, const int x0, const int y0, const int w, const int h)
{
    const int gx = get_global_id(0), gy = get_global_id(1);
    if (gx >= w || gy >= h) return;
    const int i = (y0 + gy) * width + (x0 + gx);
    const uchar4 p = rgba[i];
    grey[i] = (uchar)((77 * (int)p.x + 150 * (int)p.y + 29 * (int)p.z + 128) >> 8);
}
