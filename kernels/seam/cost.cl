#pragma OPENCL FP_CONTRACT OFF
/* Seam carving, stage 2: cumulative cost M, its last-row minimum and the backtrack.
 *
 *   M(0, c) = e(0, c) + CU(0, c)
 *   M(r, c) = e(r, c) + MIN2(M(r-1, c-1) + CL, M(r-1, c) + CU, M(r-1, c+1) + CR)
 *
 * with CL = CU = CR = 0 for backward energy and Rubinstein's forward costs for FORWARD=1:
 * CU = |I(r,c+1) - I(r,c-1)|, CL = CU + |I(r-1,c) - I(r,c-1)|, CR = CU + |I(r-1,c) - I(r,c+1)|
 * (L1 over RGB, columns clamped to the image).  Ties: the left parent wins, then the centre,
 * then the right; in the last row the smallest column wins.  A cost that reaches SEAM_INF
 * (a protected pixel on every path) stays SEAM_INF.  Parents are not stored: the backtrack
 * re-evaluates the same three candidates with the same rule, which gives exactly the parent
 * the DP chose, without writing a parent map every row.
 *
 * In batch mode (BATCH=1) the width is split into strips that no seam may leave;
 * starts[c] = 1 marks the first column of a strip (c > 0).
 *
 * Build-time defines: FORWARD, BATCH, WALK_WG (cost_walk group size), TILE_W / TILE_T
 * (cost_tiled strip width and rows per launch), UPDATE_WG (cost_update group size),
 * REDUCE_WG (argmin_backtrack group size).
 */
#if !defined(FORWARD) || !defined(BATCH) || !defined(WALK_WG) || !defined(TILE_W) \
    || !defined(TILE_T) || !defined(UPDATE_WG) || !defined(REDUCE_WG)
#error "FORWARD, BATCH, WALK_WG, TILE_W, TILE_T, UPDATE_WG and REDUCE_WG come from the host"
#endif

#define SEAM_INF 0x3FFFFFFF
/* Plain conditionals: PoCL's min/max/abs builtins are not inlined into loops (10-20x
 * slower on the CPU device). */
#define MIN2(a, b) ((a) < (b) ? (a) : (b))
#define MAX2(a, b) ((a) > (b) ? (a) : (b))
#define ABS(a) ((a) < 0 ? -(a) : (a))
#define NONE 0x7FFFFFFF

inline int diff3(uint a, uint b)
{
    int d = 0;
    for (int ch = 0; ch < 3; ++ch)
        d += ABS((int)((a >> (8 * ch)) & 0xFFu) - (int)((b >> (8 * ch)) & 0xFFu));
    return d;
}

inline int saturate(int e, int best)
{
    return (e >= SEAM_INF || best >= SEAM_INF) ? SEAM_INF : e + best;
}

/* Forward costs of pixel (r, c); r >= 1. */
inline void forward_costs(__global const uint *img, int r, int c, int width, int pitch,
                          int *cl, int *cu, int *cr)
{
    const uint L = img[r * pitch + MAX2(c - 1, 0)], R = img[r * pitch + MIN2(c + 1, width - 1)];
    const uint U = img[(r - 1) * pitch + c];
    *cu = diff3(R, L);
    *cl = *cu + diff3(U, L);
    *cr = *cu + diff3(U, R);
}

inline int first_row(__global const uint *img, __global const int *energy, int c, int width)
{
#if FORWARD
    return saturate(energy[c], diff3(img[MIN2(c + 1, width - 1)], img[MAX2(c - 1, 0)]));
#else
    return energy[c];
#endif
}

/* M(r, c) from its energy e and the previous row's costs ml, mu, mr (NONE where the neighbour
 * is absent); *which = -1, 0 or 1: the parent chosen (left wins ties, then the centre). */
inline int cell_e(__global const uint *img, int e, int r, int c, int width, int pitch,
                  int ml, int mu, int mr, int *which)
{
    int cl = 0, cu = 0, cr = 0;
#if FORWARD
    forward_costs(img, r, c, width, pitch, &cl, &cu, &cr);
#endif
    int best = ml == NONE ? NONE : ml + cl;
    *which = -1;
    if (mu + cu < best) { best = mu + cu; *which = 0; }
    if (mr != NONE && mr + cr < best) { best = mr + cr; *which = 1; }
    return saturate(e, best);
}

inline int cell(__global const uint *img, __global const int *energy, int r, int c,
                int width, int pitch, int ml, int mu, int mr)
{
    int which;
    return cell_e(img, energy[r * pitch + c], r, c, width, pitch, ml, mu, mr, &which);
}

inline int has_left(__global const uchar *starts, int c)
{
#if BATCH
    return c > 0 && !starts[c];
#else
    return c > 0;
#endif
}

inline int has_right(__global const uchar *starts, int c, int width)
{
#if BATCH
    return c + 1 < width && !starts[c + 1];
#else
    return c + 1 < width;
#endif
}

/* Whole table in one work-group walking the rows; the previous and current cost rows
 * ping-pong in local memory (rows: 2 * pitch ints). */
__kernel __attribute__((reqd_work_group_size(WALK_WG, 1, 1)))
void cost_walk(__global const uint *img, __global const int *energy, __global int *cost,
               __global const uchar *starts, int width, int height, int pitch,
               __local int *rows)
{
    const int lid = get_local_id(0);
    __local int *prev = rows, *cur = rows + pitch;
    for (int c = lid; c < width; c += WALK_WG) {
        const int v = first_row(img, energy, c, width);
        prev[c] = v;
        cost[c] = v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int r = 1; r < height; ++r) {
        for (int c = lid; c < width; c += WALK_WG) {
            const int ml = has_left(starts, c) ? prev[c - 1] : NONE;
            const int mr = has_right(starts, c, width) ? prev[c + 1] : NONE;
            const int v = cell(img, energy, r, c, width, pitch, ml, prev[c], mr);
            cur[c] = v;
            cost[r * pitch + c] = v;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        __local int *t = prev; prev = cur; cur = t;
    }
}

/* The whole table on one work-item, row after row in plain loops that the compiler
 * vectorises (backward energy only: its M needs no pixel access).  M's value does not
 * depend on the tie rule, so a branch-free min is exact.  For CPUs: no barriers, and the
 * previous row is still in cache when it is read back. */
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void cost_rows(__global const int *restrict energy, __global int *restrict cost,
               __global const uchar *restrict starts, int width, int height, int pitch)
{
    for (int c = 0; c < width; ++c) cost[c] = energy[c];
    for (int r = 1; r < height; ++r) {
        __global const int *restrict er = energy + r * pitch;
        __global const int *restrict up = cost + (r - 1) * pitch;
        __global int *restrict mr = cost + r * pitch;
        /* Edge columns apart, so the inner loop loads unconditionally (vectorisable). */
        for (int c = 0; c < width; c += MAX2(width - 1, 1)) {
            const int ml = has_left(starts, c) ? up[c - 1] : NONE;
            const int mrt = has_right(starts, c, width) ? up[c + 1] : NONE;
            const int best = MIN2(MIN2(ml, up[c]), mrt);
            mr[c] = saturate(er[c], best);
        }
        for (int c = 1; c < width - 1; ++c) {
            int ml = up[c - 1], mrt = up[c + 1];
#if BATCH
            ml = starts[c] ? NONE : ml;
            mrt = starts[c + 1] ? NONE : mrt;
#endif
            const int m0 = MIN2(ml, up[c]);
            const int best = MIN2(m0, mrt);
            const int e = er[c];
            mr[c] = (e >= SEAM_INF || best >= SEAM_INF) ? SEAM_INF : e + best;
        }
    }
}

/* Rows [row0, row0 + TILE_T) of the table (the row strip s = row0 / TILE_T); launched once
 * per row strip.  One work-group per TILE_W columns plus TILE_T halo columns each side,
 * recomputed redundantly: an error entering at the edge of the extended strip moves one
 * column per row, so after TILE_T rows the centre is still exact.  One work-item per
 * column: its TILE_T energies are loaded into registers before the walk (all loads in
 * flight at once), so the walk itself waits only on barriers, not on memory.
 *
 * entry[s * pitch + c] receives, for each centre column c, the column in row row0 that the
 * cheapest path ending at (last row of the strip, c) passes through (parents chosen by the
 * backtrack's rule), so argmin_backtrack_strips jumps a whole strip per step. */
#define TILE_N (TILE_W + 2 * TILE_T)
__kernel __attribute__((reqd_work_group_size(TILE_N, 1, 1)))
void cost_tiled(__global const uint *img, __global const int *energy, __global int *cost,
                __global int *entry, __global const uchar *starts, int width, int height, int pitch,
                int row0)
{
    __local int val[2][TILE_N];
    __local int org[2][TILE_N];
    const int i = get_local_id(0);
    const int c = (int)get_group_id(0) * TILE_W - TILE_T + i;
    const int in = c >= 0 && c < width;
    const int centre = in && i >= TILE_T && i < TILE_T + TILE_W;
    const int left = in && i > 0 && has_left(starts, c);
    const int right = in && i + 1 < TILE_N && has_right(starts, c, width);
    int e[TILE_T];
#pragma unroll
    for (int t = 0; t < TILE_T; ++t)
        e[t] = (in && row0 + t < height) ? energy[(row0 + t) * pitch + c] : 0;
    if (row0 > 0) val[1][i] = in ? cost[(row0 - 1) * pitch + c] : NONE;
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int t = 0; t < TILE_T; ++t) {
        const int r = row0 + t, p = (t + 1) & 1;   /* row r - 1 is in val[p] */
        int v = NONE, o = c;
        if (in && r < height) {
            if (r == 0) {
#if FORWARD
                v = saturate(e[t], diff3(img[MIN2(c + 1, width - 1)], img[MAX2(c - 1, 0)]));
#else
                v = e[t];
#endif
            } else {
                int which;
                v = cell_e(img, e[t], r, c, width, pitch, left ? val[p][i - 1] : NONE, val[p][i],
                           right ? val[p][i + 1] : NONE, &which);
                if (t > 0) o = org[p][i + which];
            }
            if (centre) cost[r * pitch + c] = v;
            if (centre && (t == TILE_T - 1 || r == height - 1)) entry[(row0 / TILE_T) * pitch + c] = o;
        }
        val[1 - p][i] = v;
        org[1 - p][i] = o;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* Incremental table after one seam was removed (exact mode).  Before the call the rows of
 * `cost` were shifted with the image (remove.cl) and the energy updated, so entries
 * far from the seam already hold the new values.  Row r must be recomputed only in the
 * seam's window [s(r) - 3, s(r) + 2] and next to entries of row r - 1 that changed; the
 * window of changed entries is carried from row to row (it dies out where the new value
 * equals the shifted old one).  One work-group; UPDATE_WG = 1 runs it as a plain loop. */
__kernel __attribute__((reqd_work_group_size(UPDATE_WG, 1, 1)))
void cost_update(__global const uint *img, __global const int *energy, __global int *cost,
                 __global const int *seams, int width, int height, int pitch)
{
    if (seams[0] < 0) return;
#if UPDATE_WG > 1
    __local int span[3][2];
    const int lid = get_local_id(0);
    if (lid == 0) {
        for (int k = 0; k < 3; ++k) { span[k][0] = NONE; span[k][1] = -1; }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#else
    const int lid = 0;
#endif
    int lo = NONE, hi = -1;   /* columns of row r - 1 whose value changed */
    for (int r = 0; r < height; ++r) {
        const int s = seams[r];
        int a = s - 3, b = s + 2;
        if (lo <= hi) { a = MIN2(a, lo - 1); b = MAX2(b, hi + 1); }
        a = MAX2(a, 0);
        b = MIN2(b, width - 1);
        int nlo = NONE, nhi = -1;
        __global int *row = cost + r * pitch;
        for (int c = a + lid; c <= b; c += UPDATE_WG) {
            int v;
            if (r == 0) {
                v = first_row(img, energy, c, width);
            } else {
                __global const int *up = row - pitch;
                v = cell(img, energy, r, c, width, pitch, c > 0 ? up[c - 1] : NONE, up[c],
                         c + 1 < width ? up[c + 1] : NONE);
            }
            if (v != row[c]) {
                row[c] = v;
                nlo = MIN2(nlo, c);
                nhi = MAX2(nhi, c);
            }
        }
#if UPDATE_WG > 1
        const int k = r % 3;
        if (nlo <= nhi) { atomic_min(&span[k][0], nlo); atomic_max(&span[k][1], nhi); }
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        lo = span[k][0];
        hi = span[k][1];
        if (lid == 0) { span[(r + 2) % 3][0] = NONE; span[(r + 2) % 3][1] = -1; }
#else
        lo = nlo;
        hi = nhi;
#endif
    }
}

/* Strip [lo, hi)'s minimum of the last row (smallest column on ties) into val[0], col[0]. */
inline void last_row_min(__global const int *last, int lo, int hi, __local int *val, __local int *col)
{
    const int lid = get_local_id(0);
    int bv = NONE, bc = NONE;
    for (int c = lo + lid; c < hi; c += REDUCE_WG) {
        const int v = last[c];
        if (v < bv) { bv = v; bc = c; }   /* ascending c: the first minimum stays */
    }
    val[lid] = bv;
    col[lid] = bc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int step = REDUCE_WG / 2; step > 0; step >>= 1) {
        if (lid < step) {
            const int v = val[lid + step], c = col[lid + step];
            if (v < val[lid] || (v == val[lid] && c < col[lid])) { val[lid] = v; col[lid] = c; }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* The column in row r - 1 that the DP chose as the parent of (r, c) in strip [lo, hi):
 * the same three candidates and tie rule as cell_e. */
inline int parent(__global const uint *img, __global const int *cost, int r, int c, int lo, int hi,
                  int width, int pitch)
{
    __global const int *up = cost + (r - 1) * pitch;
    int cl = 0, cu = 0, cr = 0;
#if FORWARD
    forward_costs(img, r, c, width, pitch, &cl, &cu, &cr);
#endif
    int best = c > lo ? up[c - 1] + cl : NONE, next = c - 1;
    if (up[c] + cu < best) { best = up[c] + cu; next = c; }
    if (c + 1 < hi && up[c + 1] + cr < best) next = c + 1;
    return next;
}

/* One work-group per strip (one strip in exact mode): the minimum of the strip's last row
 * (smallest column on ties), then work-item 0 walks back up.  seams[j * height + r] gets
 * strip j's column in row r, or -1 in every row when every path crosses a protected pixel;
 * failed[0] counts those strips. */
__kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1)))
void argmin_backtrack(__global const uint *img, __global const int *cost, __global int *seams,
                      __global int *failed, int width, int height, int pitch, int nstrips)
{
    __local int val[REDUCE_WG];
    __local int col[REDUCE_WG];
    const int j = get_group_id(0), lid = get_local_id(0);
    const int lo = (int)(((long)j * width) / nstrips), hi = (int)(((long)(j + 1) * width) / nstrips);
    last_row_min(cost + (height - 1) * pitch, lo, hi, val, col);
    if (lid != 0) return;
    __global int *seam = seams + j * height;
    if (val[0] >= SEAM_INF) {
        for (int r = 0; r < height; ++r) seam[r] = -1;
        atomic_inc(failed);
        return;
    }
    int c = col[0];
    for (int r = height - 1; r > 0; --r) {
        seam[r] = c;
        c = parent(img, cost, r, c, lo, hi, width, pitch);
    }
    seam[0] = c;
}

/* The same result after cost_tiled, in two short dependent chains instead of one of
 * `height` steps: work-item 0 jumps up a row strip per step through cost_tiled's entry map
 * (noting where the seam leaves each strip at the bottom), then each work-item walks the
 * TILE_T rows of its own strips.  bottom: one int per row strip. */
__kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1)))
void argmin_backtrack_strips(__global const uint *img, __global const int *cost,
                             __global const int *entry, __global int *seams, __global int *failed,
                             int width, int height, int pitch, int nstrips, __local int *bottom)
{
    __local int val[REDUCE_WG];
    __local int col[REDUCE_WG];
    const int j = get_group_id(0), lid = get_local_id(0);
    const int lo = (int)(((long)j * width) / nstrips), hi = (int)(((long)(j + 1) * width) / nstrips);
    const int rstrips = (height + TILE_T - 1) / TILE_T;
    __global int *seam = seams + j * height;
    last_row_min(cost + (height - 1) * pitch, lo, hi, val, col);
    if (val[0] >= SEAM_INF) {
        for (int r = lid; r < height; r += REDUCE_WG) seam[r] = -1;
        if (lid == 0) atomic_inc(failed);
        return;
    }
    if (lid == 0) {
        int c = col[0];
        for (int s = rstrips - 1; s >= 0; --s) {
            bottom[s] = c;
            c = entry[s * pitch + c];
            if (s > 0) c = parent(img, cost, s * TILE_T, c, lo, hi, width, pitch);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = lid; s < rstrips; s += REDUCE_WG) {
        const int r0 = s * TILE_T;
        int c = bottom[s];
        for (int r = MIN2(r0 + TILE_T, height) - 1; r > r0; --r) {
            seam[r] = c;
            c = parent(img, cost, r, c, lo, hi, width, pitch);
        }
        seam[r0] = c;
    }
}
