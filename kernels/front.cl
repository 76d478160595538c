#pragma OPENCL FP_CONTRACT OFF
/* Stage 2: fill front = target pixels with at least one known 4-neighbour inside the image. */
#include "rect.h"

__kernel void fill_front(__global const uchar *unknown, __global uchar *front,
                         const int width, const int height, RECT_PARAMS)
{
    RECT_LOAD;
    const int gx = get_global_id(0), gy = get_global_id(1);
    if (gx >= w || gy >= h) return;
    const int x = x0 + gx, y = y0 + gy, i = y * width + x;
    uchar f = 0;
    if (unknown[i]) {
        f = (x > 0 && !unknown[i - 1]) || (x + 1 < width && !unknown[i + 1]) ||
            (y > 0 && !unknown[i - width]) || (y + 1 < height && !unknown[i + width]);
    }
    front[i] = f;
}
