#pragma OPENCL FP_CONTRACT OFF
/* Seam carving, stage 1: pixel energy (one concern: the energy map).
 *
 * Pixels are packed RGBA8 in a uint (R in the low byte), rows `pitch` elements apart; the
 * pitch stays the original width while seams are removed, so indexing never changes.
 * Energy is an int: the L1 norm of a 3x3 Prewitt gradient summed over R, G, B
 * (0..4590), edges replicated.  The optional mask (uchar, 1 = keep, 2 = drop) turns a
 * protected pixel into SEAM_INF and lowers a pixel to drop by `drop`.  With FORWARD=1
 * (Rubinstein forward energy) the pixel term is 0: the costs live in the DP (cost.cl),
 * and only the mask bias is stored here.
 *
 * Build-time defines (from the host, sized from rt.limits):
 *   TILE_X, TILE_Y  work-group shape of energy_full; the tile plus a one-pixel halo is
 *                   staged in local memory ((TILE_X+2)*(TILE_Y+2) uints)
 *   FORWARD         1 for forward energy, 0 for backward (gradient) energy
 *   HAS_MASK        1 when the mask buffer is meaningful
 */
#ifndef TILE_X
#error "TILE_X must be defined by the host"
#endif
#ifndef TILE_Y
#error "TILE_Y must be defined by the host"
#endif
#ifndef FORWARD
#define FORWARD 0
#endif
#ifndef HAS_MASK
#define HAS_MASK 0
#endif

#define SEAM_INF 0x3FFFFFFF
/* Plain conditionals: PoCL's min/max/abs builtins are not inlined (much slower on CPUs). */
#define MIN2(a, b) ((a) < (b) ? (a) : (b))
#define MAX2(a, b) ((a) > (b) ? (a) : (b))
#define ABS(a) ((a) < 0 ? -(a) : (a))
#define MASK_KEEP 1
#define MASK_DROP 2

inline int channel(uint p, int ch) { return (int)((p >> (8 * ch)) & 0xFFu); }

/* L1 Prewitt gradient over RGB of a 3x3 neighbourhood given row-major as n[0..8]. */
inline int prewitt(uint n0, uint n1, uint n2, uint n3, uint n5, uint n6, uint n7, uint n8)
{
    int e = 0;
    for (int ch = 0; ch < 3; ++ch) {
        int gx = (channel(n2, ch) - channel(n0, ch)) + (channel(n5, ch) - channel(n3, ch))
               + (channel(n8, ch) - channel(n6, ch));
        int gy = (channel(n6, ch) - channel(n0, ch)) + (channel(n7, ch) - channel(n1, ch))
               + (channel(n8, ch) - channel(n2, ch));
        e += ABS(gx) + ABS(gy);
    }
    return e;
}

inline int with_mask(int e, uchar m, int drop)
{
    if (m == MASK_KEEP) return SEAM_INF;
    if (m == MASK_DROP) return e - drop;
    return e;
}

/* Energy of the whole (width x height) image; global size rounded up to the tile. */
__kernel void energy_full(__global const uint *img, __global const uchar *mask,
                          __global int *energy, int width, int height, int pitch, int drop)
{
    __local uint tile[TILE_Y + 2][TILE_X + 2];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int x0 = get_group_id(0) * TILE_X - 1, y0 = get_group_id(1) * TILE_Y - 1;
#if !FORWARD
    for (int ty = ly; ty < TILE_Y + 2; ty += TILE_Y) {
        const int y = MIN2(MAX2(y0 + ty, 0), height - 1);
        for (int tx = lx; tx < TILE_X + 2; tx += TILE_X) {
            const int x = MIN2(MAX2(x0 + tx, 0), width - 1);
            tile[ty][tx] = img[y * pitch + x];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height) return;
#if FORWARD
    int e = 0;
#else
    const int tx = lx + 1, ty = ly + 1;
    int e = prewitt(tile[ty - 1][tx - 1], tile[ty - 1][tx], tile[ty - 1][tx + 1],
                    tile[ty][tx - 1], tile[ty][tx + 1],
                    tile[ty + 1][tx - 1], tile[ty + 1][tx], tile[ty + 1][tx + 1]);
#endif
#if HAS_MASK
    e = with_mask(e, mask[y * pitch + x], drop);
#endif
    energy[y * pitch + x] = e;
}

inline int energy_at(__global const uint *img, __global const uchar *mask,
                     int x, int y, int width, int height, int pitch, int drop)
{
#if FORWARD
    int e = 0;
#else
    const int xl = MAX2(x - 1, 0), xr = MIN2(x + 1, width - 1);
    __global const uint *up = img + MAX2(y - 1, 0) * pitch;
    __global const uint *mid = img + y * pitch;
    __global const uint *dn = img + MIN2(y + 1, height - 1) * pitch;
    int e = prewitt(up[xl], up[x], up[xr], mid[xl], mid[xr], dn[xl], dn[x], dn[xr]);
#endif
#if HAS_MASK
    e = with_mask(e, mask[y * pitch + x], drop);
#endif
    return e;
}

/* Recompute the energy next to the seams just removed (after remove.cl shifted the
 * rows).  seams[j * height + y] is seam j's column in row y before removal (seams sorted
 * left to right, -1 for a seam that was not removed); one work-item per row.  Only the
 * columns whose 3x3 neighbourhood straddled a removed pixel change: for the gap of seam j
 * at column g(y) (in the new row) those are MIN2(g(y-1..y+1)) - 1 .. MAX2(g(y-1..y+1)). */
__kernel void energy_update(__global const uint *img, __global const uchar *mask,
                            __global int *energy, __global const int *seams, int nseams,
                            int width, int height, int pitch, int drop)
{
    const int y = get_global_id(0);
    if (y >= height) return;
    const int ya = MAX2(y - 1, 0), yb = MIN2(y + 1, height - 1);
    int k = 0;  /* valid seams left of this one: its gap moved left by k */
    for (int j = 0; j < nseams; ++j) {
        const int s = seams[j * height + y];
        if (s < 0) continue;
        const int sa = seams[j * height + ya] - k, sb = seams[j * height + yb] - k, g = s - k;
        const int lo = MAX2(MIN2(MIN2(sa, sb), g) - 1, 0);
        const int hi = MIN2(MAX2(MAX2(sa, sb), g), width - 1);
        for (int x = lo; x <= hi; ++x)
            energy[y * pitch + x] = energy_at(img, mask, x, y, width, height, pitch, drop);
        ++k;
    }
}
