#pragma OPENCL FP_CONTRACT OFF
/* Seam carving, enlarging: insert a copy next to every marked pixel.
 *
 * dup[y * src_pitch + x] = 1 marks a pixel taken by one of the k cheapest seams (found by
 * carving a copy).  Each marked pixel is followed by a new pixel whose every byte is the
 * rounded-up mean of the pixel and its right neighbour (the pixel itself at the right
 * edge): (a | b) - (((a ^ b) >> 1) & 0x7f7f7f7f) computes that for all four bytes at once.
 * One work-item per row writes the row serially (rows have different numbers of marks
 * only in position, not in count: every seam crosses every row once).
 */

__kernel void insert_seams(__global const uint *src, __global const uchar *dup, __global uint *dst,
                           int width, int height, int src_pitch, int dst_pitch)
{
    const int y = get_global_id(0);
    if (y >= height) return;
    __global const uint *in = src + y * src_pitch;
    __global const uchar *d = dup + y * src_pitch;
    __global uint *out = dst + y * dst_pitch;
    int o = 0;
    for (int x = 0; x < width; ++x) {
        const uint a = in[x];
        out[o++] = a;
        if (d[x]) {
            const uint b = in[x + 1 < width ? x + 1 : width - 1];
            out[o++] = (a | b) - (((a ^ b) >> 1) & 0x7f7f7f7fu);
        }
    }
}
