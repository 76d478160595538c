#pragma OPENCL FP_CONTRACT OFF
/* Stage 2: fill front = target pixels with at least one known 4-neighbour inside the image. */

inline uchar front_at(__global const uchar *unknown, const int x, const int y, const int width, const int height)
{
    const int i = y * width + x;
    if (!unknown[i]) return 0;
    return (x > 0 && !unknown[i - 1]) || (x + 1 < width && !unknown[i + 1]) ||
           (y > 0 && !unknown[i - width]) || (y + 1 < height && !unknown[i + width]);
}

__kernel void fill_front(__global const uchar *unknown, __global uchar *front,
                         const int width, const int height,
                         const int x0, const int y0, const int w, const int h)
{
    const int gx = get_global_id(0), gy = get_global_id(1);
    if (gx >= w || gy >= h) return;
    const int x = x0 + gx, y = y0 + gy;
    front[y * width + x] = front_at(unknown, x, y, width, height);
}
