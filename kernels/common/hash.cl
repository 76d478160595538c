#pragma OPENCL FP_CONTRACT OFF
/* The multiscale fill's random numbers: a 32-bit integer hash (lowbias32) of a key, for the
 * random search of patchmatch.cl and onion.cl (bundled before them).  inpaint/methods/multiscale/reference.py
 * (hash32) computes the same values. */

inline uint hash32(uint x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}
