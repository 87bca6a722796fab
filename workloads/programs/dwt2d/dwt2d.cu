// Forward 2-D discrete wavelet transform with the reversible CDF 5/3 lifting of JPEG 2000
// (ISO/IEC 15444-1, Annex F), organised as GPU JPEG 2000 encoders and the Rodinia dwt2d
// benchmark describe it: a kernel splits the interleaved RGB pixels into level-shifted component
// planes, then one launch per decomposition level and component transforms tiles in shared
// memory, rows first, then columns, and writes the four subbands (LL, HL, LH, HH) in the
// quadrant layout. Written for this project.

#define TILE_W 32                          // input columns per CTA
#define TILE_H 16                          // input rows per CTA: 512 threads
#define HALO_LO 2                          // the 5/3 lifting reads 2 samples before ...
#define HALO_HI 1                          // ... and 1 after an even-aligned run
#define SW (TILE_W + HALO_LO + HALO_HI)
#define SH (TILE_H + HALO_LO + HALO_HI)

// RGB bytes (interleaved) to three planes of ints with the JPEG 2000 DC level shift (-128).
extern "C" __global__ void copy_components(const unsigned char* rgb, int pixels, int* r, int* g,
                                           int* b) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= pixels) return;
    r[i] = (int)rgb[3 * i] - 128;
    g[i] = (int)rgb[3 * i + 1] - 128;
    b[i] = (int)rgb[3 * i + 2] - 128;
}

// Whole-sample symmetric extension of index i into [0, n).
__device__ __forceinline__ int mirror(int i, int n) {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * (n - 1) - i;
    return i;
}

// One level on the w x h band at the top left of src (row stride `stride`): LL goes to the top
// left w/2 x h/2 of dst, HL to its right, LH below it, HH diagonally.
extern "C" __global__ void fdwt53(const int* src, int* dst, int w, int h, int stride) {
    __shared__ int t[SH][SW];
    int c0 = blockIdx.x * TILE_W, r0 = blockIdx.y * TILE_H;
    int tid = threadIdx.y * TILE_W + threadIdx.x;

    for (int i = tid; i < SH * SW; i += TILE_W * TILE_H) {       // tile plus halo, mirrored
        int y = i / SW, x = i % SW;
        t[y][x] = src[mirror(r0 + y - HALO_LO, h) * stride + mirror(c0 + x - HALO_LO, w)];
    }
    __syncthreads();
    // rows: predict the odd samples (local columns 1, 3, .., SW-2), then update the even ones
    for (int i = tid; i < SH * (TILE_W / 2 + 1); i += TILE_W * TILE_H) {
        int y = i / (TILE_W / 2 + 1), x = 2 * (i % (TILE_W / 2 + 1)) + 1;
        t[y][x] -= (t[y][x - 1] + t[y][x + 1]) >> 1;
    }
    __syncthreads();
    for (int i = tid; i < SH * (TILE_W / 2); i += TILE_W * TILE_H) {
        int y = i / (TILE_W / 2), x = 2 * (i % (TILE_W / 2)) + HALO_LO;
        t[y][x] += (t[y][x - 1] + t[y][x + 1] + 2) >> 2;
    }
    __syncthreads();
    // columns: the same on local rows
    for (int i = tid; i < (TILE_H / 2 + 1) * TILE_W; i += TILE_W * TILE_H) {
        int y = 2 * (i / TILE_W) + 1, x = i % TILE_W + HALO_LO;
        t[y][x] -= (t[y - 1][x] + t[y + 1][x]) >> 1;
    }
    __syncthreads();
    for (int i = tid; i < (TILE_H / 2) * TILE_W; i += TILE_W * TILE_H) {
        int y = 2 * (i / TILE_W) + HALO_LO, x = i % TILE_W + HALO_LO;
        t[y][x] += (t[y - 1][x] + t[y + 1][x] + 2) >> 2;
    }
    __syncthreads();
    // every thread writes one coefficient to its subband
    int x = threadIdx.x, y = threadIdx.y;
    int ox = (c0 + x) / 2 + (x & 1) * (w / 2);
    int oy = (r0 + y) / 2 + (y & 1) * (h / 2);
    dst[oy * stride + ox] = t[y + HALO_LO][x + HALO_LO];
}
