#pragma OPENCL FP_CONTRACT OFF
/* The device-resident fill loop's bookkeeping: one work-item, after each iteration's copy.
 *
 * It counts the iteration in rect[4] and logs it (target index result[0], source index result[1]
 * into the centre map, SSD result[2]) in slot (count % slots) of the log, 3 ints a slot, for
 * the host, which reads the log every few iterations (never more than `slots` at once).  And it
 * sets the rectangle rect[0..3] that stages 2, 4 and 5 update next (rect.h): the copied patch
 * clipped to the image, grown by 2 * radius within the image, then within the object's box
 * (bx0, by0)-(bx1, by1).  That is the host's rectangle, computed the same way
 * (inpaint.pipeline.Inpainter.step). */
__kernel void loop_next(__global const int *result, __global int *rect, __global int *log, const int slots,
                        const int width, const int height, const int radius,
                        const int bx0, const int by0, const int bx1, const int by1)
{
    const int p = result[0];
    const int it = rect[4] % slots;
    rect[4] += 1;
    log[3 * it] = p;
    log[3 * it + 1] = result[1];
    log[3 * it + 2] = result[2];
    if (p < 0) {                 /* nothing left to fill: an empty rectangle */
        rect[0] = bx0; rect[1] = by0; rect[2] = 0; rect[3] = 0;
        return;
    }
    const int ty = p / width, tx = p - ty * width;
    const int px0 = max(tx - radius, 0), py0 = max(ty - radius, 0);
    const int px1 = min(tx + radius + 1, width), py1 = min(ty + radius + 1, height);
    const int x0 = max(max(px0 - 2 * radius, 0), bx0), y0 = max(max(py0 - 2 * radius, 0), by0);
    const int x1 = min(min(px1 + 2 * radius, width), bx1), y1 = min(min(py1 + 2 * radius, height), by1);
    rect[0] = x0;
    rect[1] = y0;
    rect[2] = x1 - x0;
    rect[3] = y1 - y0;
}
