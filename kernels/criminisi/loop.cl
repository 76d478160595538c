#pragma OPENCL FP_CONTRACT OFF
/* The device-resident fill loop (inpaint.methods.criminisi.job.Inpainter, loop 'device'): the Criminisi
 * iteration with the host out of it.  An iteration is four launches: update_and_pick, the SSD
 * map (ssd.cl), its argmin by slices (reduce.cl's argmin_ssd_groups; one slice on a CPU) and
 * pick_copy_and_next.  The kernels here call the stage files' per-pixel and reduction
 * functions, so the arithmetic is the stages' own.
 *
 * rect[0..3] = x0, y0, w, h: the rectangle stages 2, 4 and 5 update next (first the object's
 * box); rect[4] counts the iterations.  result[0..2] = target index, source index into the
 * centre map (cx0, cy0 its origin, ncx its width), SSD, as the stages leave them.  When
 * result[0] < 0 there is no target: the fill is complete, and nothing more is written but the
 * log and an empty rectangle. */

/* One work-group of REDUCE_GROUP work-items: stages 2, 4 and 5 on the rectangle, each over the
 * whole rectangle before the next starts (the work-group barrier orders their global writes),
 * then stage 5's argmax over the object's box (bx0, by0, bw, bh) into result[0]. */
__kernel __attribute__((reqd_work_group_size(REDUCE_GROUP, 1, 1)))
void update_and_pick(__global const uchar *grey, __global const uchar *unknown, __global uchar *front,
                     __global const float *conf, __global float *cpatch, __global float *prio,
                     __global int *result, __global const int *rect,
                     const int width, const int height, const int radius,
                     const int bx0, const int by0, const int bw, const int bh)
{
    __local float lv[REDUCE_GROUP];
    __local int li[REDUCE_GROUP];
    const int lid = get_local_id(0);
    const int x0 = rect[0], y0 = rect[1], w = rect[2], n = rect[2] * rect[3];
    for (int k = lid; k < n; k += REDUCE_GROUP) {
        const int y = y0 + k / w, x = x0 + k % w;
        front[y * width + x] = front_at(unknown, x, y, width, height);
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    for (int k = lid; k < n; k += REDUCE_GROUP) {
        const int y = y0 + k / w, x = x0 + k % w;
        cpatch[y * width + x] = confidence_at(conf, front, x, y, width, height, radius);
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    for (int k = lid; k < n; k += REDUCE_GROUP) {
        const int y = y0 + k / w, x = x0 + k % w;
        prio[y * width + x] = priority_at(grey, unknown, front, cpatch, x, y, width, height);
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    argmax_rect(prio, result, width, bx0, by0, bw, bh, lv, li);
}

/* One work-group of REDUCE_GROUP work-items: the end of stage 7 (the argmin of the `groups`
 * (value, index) pairs that argmin_ssd_groups left in pv, pi) into result[1], result[2]; stage 8
 * with that source; then work-item 0 logs the iteration in slot (rect[4] % slots) of the log,
 * 3 ints a slot, for the host, which reads it every few iterations (never more than `slots` at
 * once), and sets the next rectangle: the copied patch clipped to the image, grown by
 * 2 * radius within the image, then within the box (bx0, by0)-(bx1, by1).  That is the host
 * loop's rectangle (inpaint.methods.criminisi.job.Inpainter.step). */
__kernel __attribute__((reqd_work_group_size(REDUCE_GROUP, 1, 1)))
void pick_copy_and_next(__global uchar4 *rgba, __global uchar *grey, __global uchar *unknown,
                        __global float *conf, __global const float *cpatch,
                        __global const uint *pv, __global const int *pi, const int groups,
                        __global int *result, __global int *rect, __global int *log, const int slots,
                        const int width, const int height, const int radius,
                        const int cx0, const int cy0, const int ncx,
                        const int bx0, const int by0, const int bx1, const int by1)
{
    __local uint lv[REDUCE_GROUP];
    __local int li[REDUCE_GROUP];
    const int lid = get_local_id(0);
    const int p = result[0];
    const int ty = p / width, tx = p - ty * width;
    int index = -1;
    uint value = UINT_MAX;
    if (p >= 0) {                                  /* the same for the whole work-group */
        argmin_pairs(pv, pi, groups, lid, lv, li);
        index = li[0];
        value = lv[0];
    }
    if (p >= 0 && index >= 0) {
        const int side = 2 * radius + 1;
        const int ry = index / ncx;
        const int sx = cx0 + (index - ry * ncx), sy = cy0 + ry;
        for (int k = lid; k < side * side; k += REDUCE_GROUP)
            copy_at(rgba, grey, unknown, conf, cpatch, width, height, radius, tx, ty, sx, sy, k % side, k / side);
    }
    if (lid != 0) return;
    if (p >= 0) {
        result[1] = index;
        result[2] = (int)value;
    }
    const int it = rect[4] % slots;
    rect[4] += 1;
    log[3 * it] = p;
    log[3 * it + 1] = index;
    log[3 * it + 2] = (int)value;
    if (p < 0) {
        rect[0] = bx0; rect[1] = by0; rect[2] = 0; rect[3] = 0;
        return;
    }
    const int qx0 = max(tx - radius, 0), qy0 = max(ty - radius, 0);
    const int qx1 = min(tx + radius + 1, width), qy1 = min(ty + radius + 1, height);
    const int x0 = max(max(qx0 - 2 * radius, 0), bx0), y0 = max(max(qy0 - 2 * radius, 0), by0);
    const int x1 = min(min(qx1 + 2 * radius, width), bx1), y1 = min(min(qy1 + 2 * radius, height), by1);
    rect[0] = x0;
    rect[1] = y0;
    rect[2] = x1 - x0;
    rect[3] = y1 - y0;
}
