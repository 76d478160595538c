#pragma OPENCL FP_CONTRACT OFF
/* Multiscale fill, reconstruction: every listed pixel becomes the weighted mean of what the
 * patches covering it copy.  Each target window containing the pixel votes with its first
 * k_use candidates (see patchmatch.cl for nnf/cost); candidate k weighs
 * 256 * softness / (softness + cost_k - cost_0), so near-equal matches share the vote and
 * clearly worse ones fade out.  Integer sums and a rounded division: the result is exact.
 *
 * Defines: HALF (patch side / 2), K (list length). */

#define EMPTY 0xFFFFFFFFu

inline int round_div(const int a, const int b)  /* floor((a + b / 2) / b), a >= 0, b > 0 */
{
    return (a + b / 2) / b;
}

__kernel void vote(__global const uchar4 *est, __global const int2 *pixels,
                   __global const int *tidx, __global const int2 *nnf, __global const uint *cost,
                   __global int4 *out, const int n, const int width, const int height,
                   const int k_use, const uint softness)
{
    const int i = get_global_id(0);
    if (i >= n) return;
    const int2 p = pixels[i];
    int3 acc = (int3)(0);
    int wsum = 0;
    for (int dy = -HALF; dy <= HALF; ++dy) {
        const int ty = p.x - dy;
        if (ty < 0 || ty >= height) continue;
        for (int dx = -HALF; dx <= HALF; ++dx) {
            const int tx = p.y - dx;
            if (tx < 0 || tx >= width) continue;
            const int t = tidx[ty * width + tx];
            if (t < 0) continue;
            const uint c0 = cost[t * K];
            for (int k = 0; k < k_use; ++k) {
                const uint ck = cost[t * K + k];
                if (ck == EMPTY) continue;
                const int wk = (int)((256u * softness) / (softness + ck - c0));
                const int2 s = nnf[t * K + k];
                const int3 v = convert_int3(est[(s.x + dy) * width + s.y + dx].xyz);
                acc += wk * v;
                wsum += wk;
            }
        }
    }
    out[p.x * width + p.y] = (int4)(round_div(acc.x, wsum), round_div(acc.y, wsum), round_div(acc.z, wsum), 0);
}
