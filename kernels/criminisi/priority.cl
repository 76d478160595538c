#pragma OPENCL FP_CONTRACT OFF
/* Stage 5: priority P(p) = C(p) * (D(p) + DATA_EPS) on front pixels, -1 elsewhere, and its argmax.
 *
 * Data term D(p) = |isophote . n| / (|n| * DATA_NORM), all integers until the last steps:
 *   n        Sobel gradient of the known-pixel indicator (coordinates clamped to the image);
 *   isophote (-gy, gx) of the known pixel in p's 3x3 neighbourhood with the largest gradient
 *            (first in row-major order on ties); a known pixel's gradient is the central
 *            difference of grey, an unknown or outside neighbour replaced by the pixel itself.
 * The float steps (convert, sqrt, multiply, divide, add, multiply) are each correctly rounded
 * and never contracted, so numpy reproduces them bit for bit.
 *
 * REDUCE_GROUP (define) is the work-group size of the argmax kernel, a power of two; DATA_NORM
 * (2 * 255) and DATA_EPS (0.001) are defined by the reference, as float literals. */

inline int known_at(__global const uchar *unknown, int x, int y, int width, int height)
{
    return x >= 0 && y >= 0 && x < width && y < height && !unknown[y * width + x];
}

inline int known_clamped(__global const uchar *unknown, int x, int y, int width, int height)
{
    x = clamp(x, 0, width - 1);
    y = clamp(y, 0, height - 1);
    return !unknown[y * width + x];
}

inline float priority_at(__global const uchar *grey, __global const uchar *unknown, __global const uchar *front,
                         __global const float *cpatch, const int x, const int y, const int width, const int height)
{
    const int i = y * width + x;
    if (!front[i]) return -1.0f;

    const int kmm = known_clamped(unknown, x - 1, y - 1, width, height);
    const int k0m = known_clamped(unknown, x,     y - 1, width, height);
    const int kpm = known_clamped(unknown, x + 1, y - 1, width, height);
    const int km0 = known_clamped(unknown, x - 1, y,     width, height);
    const int kp0 = known_clamped(unknown, x + 1, y,     width, height);
    const int kmp = known_clamped(unknown, x - 1, y + 1, width, height);
    const int k0p = known_clamped(unknown, x,     y + 1, width, height);
    const int kpp = known_clamped(unknown, x + 1, y + 1, width, height);
    const int nx = (kpm + 2 * kp0 + kpp) - (kmm + 2 * km0 + kmp);
    const int ny = (kmp + 2 * k0p + kpp) - (kmm + 2 * k0m + kpm);

    int best = -1, bgx = 0, bgy = 0;
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            const int qx = x + dx, qy = y + dy;
            if (!known_at(unknown, qx, qy, width, height)) continue;
            const int g = grey[qy * width + qx];
            const int gl = known_at(unknown, qx - 1, qy, width, height) ? grey[qy * width + qx - 1] : g;
            const int gr = known_at(unknown, qx + 1, qy, width, height) ? grey[qy * width + qx + 1] : g;
            const int gu = known_at(unknown, qx, qy - 1, width, height) ? grey[(qy - 1) * width + qx] : g;
            const int gd = known_at(unknown, qx, qy + 1, width, height) ? grey[(qy + 1) * width + qx] : g;
            const int ggx = gr - gl, ggy = gd - gu;
            const int m = ggx * ggx + ggy * ggy;
            if (m > best) { best = m; bgx = ggx; bgy = ggy; }
        }
    }
    const int dot = abs(nx * (-bgy) + ny * bgx);
    const int nn = nx * nx + ny * ny;
    float d = 0.0f;
    if (nn != 0) {
        const float len = sqrt((float)nn);
        const float scale = len * DATA_NORM;
        d = (float)dot / scale;
    }
    const float e = d + DATA_EPS;
    return cpatch[i] * e;
}

__kernel void priority(__global const uchar *grey, __global const uchar *unknown,
                       __global const uchar *front, __global const float *cpatch,
                       __global float *prio,
                       const int width, const int height,
                       const int x0, const int y0, const int w, const int h)
{
    const int gx = get_global_id(0), gy = get_global_id(1);
    if (gx >= w || gy >= h) return;
    const int x = x0 + gx, y = y0 + gy;
    prio[y * width + x] = priority_at(grey, unknown, front, cpatch, x, y, width, height);
}

/* argmax of prio over the rectangle; ties -> smallest row-major index.  One work-group, with
 * REDUCE_GROUP floats and ints of local memory (lv, li).
 * result[0] = index y * width + x of the maximum, or -1 when no pixel has priority >= 0. */
inline void argmax_rect(__global const float *prio, __global int *result, const int width,
                        const int x0, const int y0, const int w, const int h,
                        __local float *lv, __local int *li)
{
    const int lid = get_local_id(0);
    const int n = w * h;
    float bv = -1.0f;
    int bi = -1;
    for (int k = lid; k < n; k += REDUCE_GROUP) {
        const int ry = k / w, rx = k - ry * w;
        const int idx = (y0 + ry) * width + (x0 + rx);
        const float v = prio[idx];
        if (v > bv) { bv = v; bi = idx; }   /* k ascends per work-item: first wins ties */
    }
    lv[lid] = bv; li[lid] = bi;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = REDUCE_GROUP / 2; s > 0; s >>= 1) {
        if (lid < s) {
            const float ov = lv[lid + s];
            const int oi = li[lid + s];
            if (ov > lv[lid] || (ov == lv[lid] && oi >= 0 && (li[lid] < 0 || oi < li[lid]))) {
                lv[lid] = ov; li[lid] = oi;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) result[0] = lv[0] >= 0.0f ? li[0] : -1;
}

__kernel __attribute__((reqd_work_group_size(REDUCE_GROUP, 1, 1)))
void argmax_priority(__global const float *prio, __global int *result,
                     const int width, const int x0, const int y0, const int w, const int h)
{
    __local float lv[REDUCE_GROUP];
    __local int li[REDUCE_GROUP];
    argmax_rect(prio, result, width, x0, y0, w, h, lv, li);
}
