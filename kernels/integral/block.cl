#pragma OPENCL FP_CONTRACT OFF
/* Integral image (summed-area table), five-kernel block algorithm.
 *
 * out[y, x] = sum of term(src[y', x']) over y' <= y, x' <= x  (inclusive, same shape as src)
 *
 * The image is cut into 4x4 blocks (the last block row/column may be partial):
 *   1. block_local        per 4x4 block (a work-item takes one block or a run of blocks):
 *                         vector loads of 4 rows, 2-D prefix sum inside the block.
 *   2. vertical_scan      inclusive scan, down every column, of the block edge rows
 *                         (rows 4*e + 3 of full block rows), in place.
 *   3. vertical_combine   rows 4*by .. 4*by + 2 of block row by >= 1 add the scanned edge
 *                         row 4*by - 1 above them: now every cell is a full column sum.
 *   4. horizontal_scan    inclusive scan, along every row, of the block edge columns
 *                         (columns 4*e + 3 of full block columns), in place.
 *   5. horizontal_combine columns 4*bx .. 4*bx + 2 of block column bx >= 1 add the
 *                         scanned edge column 4*bx - 1: now every cell is the integral.
 *
 * Work splits (runtime arguments, chosen by the wrapper from the device and its limits):
 * the per-block kernels (1, 3, 5) give `per_item` blocks along a row to each work-item
 * (1 on GPUs; more on CPUs, where long sequential runs pay). With SCAN_PARTS > 1 (GPUs)
 * the scans (2 and 4) split each line into SCAN_PARTS contiguous chunks handled by the
 * work-items of one work-group (chunk sums, exclusive scan of the chunk sums in local
 * memory, then a second pass that writes). With SCAN_PARTS == 1 (CPUs) there is no local
 * memory and no barrier: the vertical scan adds edge row e - 1 to edge row e over a strip
 * of `cols` columns per work-item, the horizontal scan is one serial scan per row.
 *
 * Build-time specialisation (-D):
 *   SRC_T        source element type: uchar, int or float
 *   DST_T        accumulation / storage type: uint (an int32 destination: same bits,
 *                arithmetic modulo 2^32 instead of undefined signed overflow) or float
 *   KIND         0 = sum, 1 = sum of squares, 2 = count of non-zero pixels
 *   SCAN_PARTS   work-items per scanned line (local size along the scan)
 *   SCAN_LINES   lines per scan work-group (local size across the scan)
 *   SRC_FLOAT    1 when SRC_T is float (max_abs is only built for integer sources)
 * Indices are int: the wrapper refuses images of 2^31 or more pixels.
 */

#if !defined(SRC_T) || !defined(DST_T) || !defined(KIND) || !defined(SCAN_PARTS) || !defined(SCAN_LINES) || !defined(SRC_FLOAT)
#error "integral/block.cl needs -DSRC_T, -DDST_T, -DKIND, -DSCAN_PARTS, -DSCAN_LINES and -DSRC_FLOAT"
#endif

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define SRC4 CAT(SRC_T, 4)
#define DST4 CAT(DST_T, 4)
#define CONVERT_DST4 CAT(convert_, DST4)

/* The per-pixel term of the integral, on 4 pixels at once (0 maps to 0 for every kind). */
inline DST4 term4(SRC4 v)
{
#if KIND == 0
    return CONVERT_DST4(v);
#elif KIND == 1
    DST4 d = CONVERT_DST4(v);
    return d * d;
#elif KIND == 2
    /* a vector comparison gives -1 (all bits set) for true, 0 for false */
    return (DST4)(0) - CONVERT_DST4(v != (SRC4)(0));
#else
#error "KIND must be 0 (sum), 1 (sum of squares) or 2 (count of non-zero)"
#endif
}

/* Four pixels of row y starting at column x0; columns >= width read as 0. */
inline SRC4 load4(__global const SRC_T *src, int row_start, int x0, int width)
{
    if (x0 + 4 <= width)
        return vload4(0, src + row_start + x0);
    SRC4 v = (SRC4)(0);
    v.s0 = src[row_start + x0];
    if (x0 + 1 < width) v.s1 = src[row_start + x0 + 1];
    if (x0 + 2 < width) v.s2 = src[row_start + x0 + 2];
    return v;
}

/* Four cells of row y starting at column x0; columns >= width are not written. */
inline void store4(__global DST_T *dst, int row_start, int x0, int width, DST4 v)
{
    if (x0 + 4 <= width) {
        vstore4(v, 0, dst + row_start + x0);
        return;
    }
    dst[row_start + x0] = v.s0;
    if (x0 + 1 < width) dst[row_start + x0 + 1] = v.s1;
    if (x0 + 2 < width) dst[row_start + x0 + 2] = v.s2;
}

/* Row prefix inside a 4-vector, in two shift-and-add steps. */
inline DST4 prefix4(DST4 r)
{
    r += (DST4)((DST_T)(0), r.s012);
    r += (DST4)((DST_T)(0), (DST_T)(0), r.s01);
    return r;
}

/* 1. Local integral of every 4x4 block. Work-item (i, by) handles blocks
 * bx = i * per_item .. i * per_item + per_item - 1 of block row by;
 * global size >= (ceil(ceil(width/4) / per_item), ceil(height/4)). */
__kernel void block_local(__global const SRC_T *src, int src_offset, int src_pitch,
                          __global DST_T *dst, int width, int height, int per_item)
{
    const int y0 = 4 * (int)get_global_id(1);
    if (y0 >= height)
        return;
    src += src_offset;
    const int full_rows = y0 + 4 <= height;
    const DST4 zero = (DST4)(0);
    for (int b = 0; b < per_item; ++b) {
        const int x0 = 4 * ((int)get_global_id(0) * per_item + b);
        if (x0 >= width)
            return;
        DST4 r0, r1, r2, r3;
        if (full_rows && x0 + 4 <= width) {
            r0 = term4(vload4(0, src + y0 * src_pitch + x0));
            r1 = term4(vload4(0, src + (y0 + 1) * src_pitch + x0));
            r2 = term4(vload4(0, src + (y0 + 2) * src_pitch + x0));
            r3 = term4(vload4(0, src + (y0 + 3) * src_pitch + x0));
        } else {
            r0 = term4(load4(src, y0 * src_pitch, x0, width));
            r1 = (y0 + 1 < height) ? term4(load4(src, (y0 + 1) * src_pitch, x0, width)) : zero;
            r2 = (y0 + 2 < height) ? term4(load4(src, (y0 + 2) * src_pitch, x0, width)) : zero;
            r3 = (y0 + 3 < height) ? term4(load4(src, (y0 + 3) * src_pitch, x0, width)) : zero;
        }
        /* prefix along each row, then down the columns */
        r0 = prefix4(r0);
        r1 = prefix4(r1) + r0;
        r2 = prefix4(r2) + r1;
        r3 = prefix4(r3) + r2;
        if (full_rows && x0 + 4 <= width) {
            vstore4(r0, 0, dst + y0 * width + x0);
            vstore4(r1, 0, dst + (y0 + 1) * width + x0);
            vstore4(r2, 0, dst + (y0 + 2) * width + x0);
            vstore4(r3, 0, dst + (y0 + 3) * width + x0);
        } else {
            store4(dst, y0 * width, x0, width, r0);
            if (y0 + 1 < height) store4(dst, (y0 + 1) * width, x0, width, r1);
            if (y0 + 2 < height) store4(dst, (y0 + 2) * width, x0, width, r2);
            if (y0 + 3 < height) store4(dst, (y0 + 3) * width, x0, width, r3);
        }
    }
}

/* Scan of `count` elements dst[first + i * stride], i = 0 .. count - 1, of one line,
 * shared by the SCAN_PARTS work-items `part` of the line (`slot` = its partial sum cell).
 * Every work-item of the group must call it (it contains barriers when SCAN_PARTS > 1). */
inline void scan_line(__global DST_T *dst, int first, int stride, int count, int live,
                      int part, __local DST_T *partials, int slot)
{
    const int chunk = (count + SCAN_PARTS - 1) / SCAN_PARTS;
    const int begin = min(part * chunk, count);
    const int end = min(begin + chunk, count);
    DST_T acc = (DST_T)(0);
#if SCAN_PARTS > 1
    if (live) {
        for (int i = begin; i < end; ++i)
            acc += dst[first + i * stride];
    }
    partials[slot] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (part == 0) {
        /* exclusive scan of this line's chunk sums, in place (slot of part p = slot + p * SCAN_LINES) */
        DST_T run = (DST_T)(0);
        for (int p = 0; p < SCAN_PARTS; ++p) {
            DST_T t = partials[slot + p * SCAN_LINES];
            partials[slot + p * SCAN_LINES] = run;
            run += t;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    acc = partials[slot];
#endif
    if (live) {
        for (int i = begin; i < end; ++i) {
            const int k = first + i * stride;
            acc += dst[k];
            dst[k] = acc;
        }
    }
}

/* 2. Scan down every column x of the edge rows 4*e + 3, e < nedges (= height / 4).
 * SCAN_PARTS > 1: local size (SCAN_LINES, SCAN_PARTS), global size
 *   (round_up(width, SCAN_LINES), SCAN_PARTS), one column per line, cols == 1.
 * SCAN_PARTS == 1: each work-item owns `cols` adjacent columns and adds edge row e - 1
 *   to edge row e, row after row (sequential memory for CPU devices); local size
 *   (SCAN_LINES, 1), global size (round_up(ceil(width / cols), SCAN_LINES), 1). */
__kernel __attribute__((reqd_work_group_size(SCAN_LINES, SCAN_PARTS, 1)))
void vertical_scan(__global DST_T *dst, int width, int nedges, int cols)
{
#if SCAN_PARTS > 1
    const int x = get_global_id(0);
    const int line = get_local_id(0);
    const int part = get_local_id(1);
    __local DST_T partials[SCAN_PARTS * SCAN_LINES];
    scan_line(dst, 3 * width + x, 4 * width, nedges, x < width, part, partials,
              line + part * SCAN_LINES);
#else
    const int x0 = (int)get_global_id(0) * cols;
    const int x1 = min(x0 + cols, width);
    for (int e = 1; e < nedges; ++e) {
        __global DST_T *cur = dst + (4 * e + 3) * width;
        __global const DST_T *prev = cur - 4 * width;
        for (int x = x0; x < x1; ++x)
            cur[x] += prev[x];
    }
#endif
}

/* 3. Add the scanned edge row above to rows 4*by .. 4*by + 2 of every block row by >= 1.
 * Work-item (i, j) handles blocks bx = i * per_item .. + per_item - 1 of block row j + 1;
 * global size >= (ceil(ceil(width/4) / per_item), ceil(height/4) - 1). */
__kernel void vertical_combine(__global DST_T *dst, int width, int height, int per_item)
{
    const int y0 = 4 * ((int)get_global_id(1) + 1);
    const int xa = 4 * (int)get_global_id(0) * per_item;
    if (y0 >= height || xa >= width)
        return;
    const int rows = min(3, height - y0);
    const int xb = min(xa + 4 * per_item, width);
    const int xv = xa + ((xb - xa) & ~3);  /* end of the whole 4-vectors */
    __global const DST_T *above = dst + (y0 - 1) * width;
    for (int r = 0; r < rows; ++r) {  /* row after row: sequential runs of 4 * per_item cells */
        __global DST_T *row = dst + (y0 + r) * width;
        for (int x = xa; x < xv; x += 4)
            vstore4(vload4(0, row + x) + vload4(0, above + x), 0, row + x);
        for (int x = xv; x < xb; ++x)
            row[x] += above[x];
    }
}

/* 4. Scan along every row y of the edge columns 4*e + 3, e < nedges (= width / 4).
 * Local size (SCAN_PARTS, SCAN_LINES); global size (SCAN_PARTS, round_up(height, SCAN_LINES)). */
__kernel __attribute__((reqd_work_group_size(SCAN_PARTS, SCAN_LINES, 1)))
void horizontal_scan(__global DST_T *dst, int width, int height, int nedges)
{
    const int y = get_global_id(1);
    const int part = get_local_id(0);
    const int line = get_local_id(1);
#if SCAN_PARTS > 1
    __local DST_T partials[SCAN_PARTS * SCAN_LINES];
#else
    __local DST_T *partials = 0;
#endif
    scan_line(dst, y * width + 3, 4, nedges, y < height, part, partials,
              line + part * SCAN_LINES);
}

/* 5. Add the scanned edge column on the left to columns 4*bx .. 4*bx + 2 of every block
 * column bx >= 1. Work-item (i, by) handles blocks bx = 1 + i * per_item .. + per_item - 1
 * of block row by; global size >= (ceil((ceil(width/4) - 1) / per_item), ceil(height/4)). */
__kernel void horizontal_combine(__global DST_T *dst, int width, int height, int per_item)
{
    const int y0 = 4 * (int)get_global_id(1);
    const int first = 4 * ((int)get_global_id(0) * per_item + 1);
    if (y0 >= height || first >= width)
        return;
    const int rows = min(4, height - y0);
    for (int r = 0; r < rows; ++r) {  /* row after row */
        __global DST_T *row = dst + (y0 + r) * width;
        for (int b = 0; b < per_item; ++b) {
            const int x0 = first + 4 * b;
            if (x0 >= width)
                break;
            const DST_T c = row[x0 - 1];
            if (x0 + 4 <= width) {
                /* column x0 + 3 is an edge column, already scanned: leave it alone */
                vstore3(vload3(0, row + x0) + (CAT(DST_T, 3))(c), 0, row + x0);
            } else {
                for (int x = x0; x < width; ++x)
                    row[x] += c;
            }
        }
    }
}

#if !SRC_FLOAT
/* max |pixel| for the host's int32 overflow check on device images (integer sources):
 * work-item g scans rows g, g + G, ... and writes its maximum to partial[g]
 * (as uint, so |INT_MIN| = 2^31 fits). 1-D global size G = number of partials. */
__kernel void max_abs(__global const SRC_T *src, int src_offset, int src_pitch,
                      int width, int height, __global uint *partial)
{
    const int g = get_global_id(0);
    const int n = get_global_size(0);
    uint m = 0;
    for (int y = g; y < height; y += n) {
        __global const SRC_T *row = src + src_offset + y * src_pitch;
        for (int x = 0; x < width; ++x)
            m = max(m, (uint)abs(row[x]));
    }
    partial[g] = m;
}
#endif
