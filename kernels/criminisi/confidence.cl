#pragma OPENCL FP_CONTRACT OFF
/* Stage 4: C(p) = sum of confidence over the in-image pixels of the P x P patch / P^2, for
 * front pixels (0 elsewhere).  Target pixels hold confidence 0, so the sum runs over every
 * in-image pixel; the row-major order of the additions is part of the contract with numpy. */

inline float confidence_at(__global const float *conf, __global const uchar *front, const int x, const int y,
                           const int width, const int height, const int radius)
{
    if (!front[y * width + x]) return 0.0f;
    float acc = 0.0f;
    for (int yy = y - radius; yy <= y + radius; ++yy) {
        if (yy < 0 || yy >= height) continue;
        for (int xx = x - radius; xx <= x + radius; ++xx) {
            if (xx < 0 || xx >= width) continue;
            acc = acc + conf[yy * width + xx];
        }
    }
    const int side = 2 * radius + 1;
    return acc / (float)(side * side);
}

__kernel void patch_confidence(__global const float *conf, __global const uchar *front,
                               __global float *cpatch,
                               const int width, const int height, const int radius,
                               const int x0, const int y0, const int w, const int h)
{
    const int gx = get_global_id(0), gy = get_global_id(1);
    if (gx >= w || gy >= h) return;
    const int x = x0 + gx, y = y0 + gy;
    cpatch[y * width + x] = confidence_at(conf, front, x, y, width, height, radius);
}
