#pragma OPENCL FP_CONTRACT OFF
/* Seam carving, stage 3: in-place removal of the seams found by argmin_backtrack.
 *
 * Rows keep a fixed pitch (the original width): removing seams only moves the part of
 * each row right of the first seam to the left, so no index computation ever changes.
 * seams[j * height + y] holds seam j's column in row y (sorted left to right, -1 for a
 * seam that was not found).  Besides the pixels the kernel moves the energy, and when
 * asked the cumulative cost (SHIFT_COST, for the incremental DP), the mask (HAS_MASK) and
 * the original-index map (TRACK).  With TRACK, seam_map[idx] = ordinal0 + j + 1 records
 * which original pixel each seam took; with HAS_MASK, counters[0] counts removed pixels
 * that were marked for dropping.
 *
 * Build-time defines: REMOVE_WG (1: one work-item per row moves it serially, best on
 * CPUs; > 1: one work-group per row moves it in chunks of REMOVE_WG), SHIFT_COST,
 * HAS_MASK, TRACK.
 */
#if !defined(REMOVE_WG) || !defined(SHIFT_COST) || !defined(HAS_MASK) || !defined(TRACK)
#error "REMOVE_WG, SHIFT_COST, HAS_MASK and TRACK come from the host"
#endif

#define MASK_DROP 2

#define SHIFT_ROW(NAME, T)                                                               \
inline void NAME(__global T *row, __global const int *seams, int nseams, int width,       \
                 int height, int y)                                                       \
{                                                                                         \
    int k = 0, prev = -1;                                                                 \
    for (int j = 0; j <= nseams; ++j) {                                                   \
        int s = width;                                                                    \
        if (j < nseams) {                                                                 \
            s = seams[j * height + y];                                                    \
            if (s < 0) continue;                                                          \
        }                                                                                 \
        if (k > 0)                                                                        \
            for (int x = prev + 1; x < s; ++x) row[x - k] = row[x];                       \
        prev = s;                                                                         \
        ++k;                                                                              \
    }                                                                                     \
}
SHIFT_ROW(shift_row_uint, uint)
SHIFT_ROW(shift_row_int, int)
SHIFT_ROW(shift_row_uchar, uchar)

__kernel void remove_seams(__global uint *img, __global int *energy, __global int *cost,
                  __global uchar *mask, __global int *idx, __global int *seam_map,
                  __global const int *seams, __global int *counters,
                  int nseams, int width, int height, int pitch, int ordinal0)
{
#if REMOVE_WG == 1
    const int y = get_global_id(0), lid = 0;
    if (y >= height) return;
#else
    const int y = get_group_id(0), lid = get_local_id(0);
#endif
    const int base = y * pitch;
    /* Bookkeeping for the removed pixels (before anything moves). */
    if (lid == 0) {
        for (int j = 0; j < nseams; ++j) {
            const int s = seams[j * height + y];
            if (s < 0) continue;
#if TRACK
            seam_map[idx[base + s]] = ordinal0 + j + 1;
#endif
#if HAS_MASK
            if (mask[base + s] == MASK_DROP) atomic_inc(counters);
#endif
        }
    }
#if REMOVE_WG > 1
    barrier(CLK_GLOBAL_MEM_FENCE);
#endif
    /* Segment k (between the k-th and (k+1)-th removed pixel) moves left by k. */
#if REMOVE_WG == 1
    /* Serially, one array at a time (simple loops the compiler vectorises). */
    shift_row_uint(img + base, seams, nseams, width, height, y);
    shift_row_int(energy + base, seams, nseams, width, height, y);
#if SHIFT_COST
    shift_row_int(cost + base, seams, nseams, width, height, y);
#endif
#if HAS_MASK
    shift_row_uchar(mask + base, seams, nseams, width, height, y);
#endif
#if TRACK
    shift_row_int(idx + base, seams, nseams, width, height, y);
#endif
}
#else
    int k = 0, prev = -1;
    for (int j = 0; j <= nseams; ++j) {
        int s;
        if (j < nseams) {
            s = seams[j * height + y];
            if (s < 0) continue;
        } else {
            s = width;
        }
        if (k > 0) {
            for (int x0 = prev + 1; x0 < s; x0 += REMOVE_WG) {
                const int x = x0 + lid;
                uint p = 0; int e = 0, m = 0, id = 0; uchar mk = 0;
                if (x < s) {
                    p = img[base + x]; e = energy[base + x];
#if SHIFT_COST
                    m = cost[base + x];
#endif
#if HAS_MASK
                    mk = mask[base + x];
#endif
#if TRACK
                    id = idx[base + x];
#endif
                }
                barrier(CLK_GLOBAL_MEM_FENCE);
                if (x < s) {
                    img[base + x - k] = p; energy[base + x - k] = e;
#if SHIFT_COST
                    cost[base + x - k] = m;
#endif
#if HAS_MASK
                    mask[base + x - k] = mk;
#endif
#if TRACK
                    idx[base + x - k] = id;
#endif
                }
                barrier(CLK_GLOBAL_MEM_FENCE);
            }
        }
        prev = s;
        ++k;
    }
}
#endif
