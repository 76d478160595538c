#pragma OPENCL FP_CONTRACT OFF
/* Integral image, naive device version (the benchmark's baseline for block.cl):
 * prefix-sum every row, transpose, prefix-sum every row (= every original column),
 * transpose back. Same -D specialisation as block.cl (SRC_T, DST_T, KIND) plus
 * TILE, the side of the square transpose tile (local size TILE x TILE).
 */

#if !defined(SRC_T) || !defined(DST_T) || !defined(KIND) || !defined(TILE)
#error "integral/naive.cl needs -DSRC_T, -DDST_T, -DKIND and -DTILE"
#endif

inline DST_T term(SRC_T v)
{
#if KIND == 0
    return (DST_T)v;
#elif KIND == 1
    DST_T d = (DST_T)v;
    return d * d;
#elif KIND == 2
    return (v != (SRC_T)0) ? (DST_T)1 : (DST_T)0;
#else
#error "KIND must be 0 (sum), 1 (sum of squares) or 2 (count of non-zero)"
#endif
}

/* Inclusive prefix of term(src) along each row; one work-item per row. */
__kernel void row_scan_source(__global const SRC_T *src, int src_offset, int src_pitch,
                              __global DST_T *dst, int width, int height)
{
    const int y = get_global_id(0);
    if (y >= height)
        return;
    const __global SRC_T *s = src + src_offset + y * src_pitch;
    __global DST_T *d = dst + y * width;
    DST_T acc = (DST_T)0;
    for (int x = 0; x < width; ++x) {
        acc += term(s[x]);
        d[x] = acc;
    }
}

/* Inclusive prefix along each row, in place; one work-item per row. */
__kernel void row_scan(__global DST_T *data, int width, int height)
{
    const int y = get_global_id(0);
    if (y >= height)
        return;
    __global DST_T *d = data + y * width;
    DST_T acc = (DST_T)0;
    for (int x = 0; x < width; ++x) {
        acc += d[x];
        d[x] = acc;
    }
}

/* dst (width x height) = transpose of src (height x width), through a local tile. */
__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))
void transpose(__global const DST_T *src, __global DST_T *dst, int width, int height)
{
    __local DST_T tile[TILE][TILE + 1];
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int x = get_group_id(0) * TILE + lx;
    const int y = get_group_id(1) * TILE + ly;
    if (x < width && y < height)
        tile[ly][lx] = src[y * width + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    const int tx = get_group_id(1) * TILE + lx;  /* column in dst = row in src */
    const int ty = get_group_id(0) * TILE + ly;  /* row in dst = column in src */
    if (tx < height && ty < width)
        dst[ty * height + tx] = tile[lx][ly];
}
