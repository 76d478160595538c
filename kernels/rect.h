/* How a per-pixel stage kernel (stages 2, 4 and 5) receives its rectangle x0, y0, w, h.
 *
 * Step by step, the host passes it as four ints.  On the device-resident loop (RESIDENT = 1)
 * the device itself computed it after the last copy (loop.cl), and the kernel reads it from
 * a four-int buffer, so the host never waits between iterations.  The kernels' arithmetic is
 * the same either way. */
#ifndef RECT_H
#define RECT_H
#if RESIDENT
#define RECT_PARAMS __global const int *rect
#define RECT_LOAD const int x0 = rect[0], y0 = rect[1], w = rect[2], h = rect[3]
#else
#define RECT_PARAMS const int x0, const int y0, const int w, const int h
#define RECT_LOAD
#endif
#endif
