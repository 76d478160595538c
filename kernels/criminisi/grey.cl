#pragma OPENCL FP_CONTRACT OFF
/* Stage 1: RGB -> grey with integer BT.601 weights (exact, identical to the numpy reference).
 * grey = (GREY_R R + GREY_G G + GREY_B B + 128) >> 8, the weights defined by the reference. */
__kernel void rgb_to_grey(__global const uchar4 *rgba, __global uchar *grey,
                          const int width, const int x0, const int y0, const int w, const int h)
{
    const int gx = get_global_id(0), gy = get_global_id(1);
    if (gx >= w || gy >= h) return;
    const int i = (y0 + gy) * width + (x0 + gx);
    const uchar4 p = rgba[i];
    grey[i] = (uchar)((GREY_R * (int)p.x + GREY_G * (int)p.y + GREY_B * (int)p.z + 128) >> 8);
}
