// JPEG's transform stages on 8x8 tiles (ITU-T T.81): the encoder's forward DCT with
// quantisation (ERCBench JPEG-e) and the decoder's dequantisation with inverse DCT and level
// shift (ERCBench JPEG-d; OWL's JPEG decoding), written for this project. Both are separable
// matrix-form DCTs in fixed point (13-bit cosines, as integer JPEG codecs use), so the results
// are exact integers. A CTA of 64 threads works on 8 tiles: each thread transforms one row of
// a tile, the CTA exchanges the rows through shared memory, then each thread transforms one
// column.

#define TILES 8                       // tiles per CTA
#define CONST_BITS 13
#define PASS1_BITS 2                  // extra precision kept between the passes

// C[u][x] = round(2^13 · c(u)/2 · cos((2x + 1)uπ/16)), c(0) = 1/√2, else 1.
__constant__ int C[8][8] = {
    {2896, 2896, 2896, 2896, 2896, 2896, 2896, 2896},
    {4017, 3406, 2276, 799, -799, -2276, -3406, -4017},
    {3784, 1567, -1567, -3784, -3784, -1567, 1567, 3784},
    {3406, -799, -4017, -2276, 2276, 4017, 799, -3406},
    {2896, -2896, -2896, 2896, 2896, -2896, -2896, 2896},
    {2276, -4017, 799, 3406, -3406, -799, 4017, -2276},
    {1567, -3784, 3784, -1567, -1567, 3784, -3784, 1567},
    {799, -2276, 3406, -4017, 4017, -3406, 2276, -799}};

// The luminance quantisation table of T.81 Annex K (quality 50).
__constant__ int QUANT[8][8] = {
    {16, 11, 10, 16, 24, 40, 51, 61},     {12, 12, 14, 19, 26, 58, 60, 55},
    {14, 13, 16, 24, 40, 57, 69, 56},     {14, 17, 22, 29, 51, 87, 80, 62},
    {18, 22, 37, 56, 68, 109, 103, 77},   {24, 35, 55, 64, 81, 104, 113, 92},
    {49, 64, 78, 87, 103, 121, 120, 101}, {72, 92, 95, 98, 112, 100, 103, 99}};

__shared__ int tile[TILES][8][9];     // one spare column against bank conflicts

__device__ __forceinline__ int descale(int x, int bits) { return (x + (1 << (bits - 1))) >> bits; }

// Forward: pixels (width w) → quantised coefficients, tile-major (64 per tile).
extern "C" __global__ void jpeg_dct(const unsigned char* image, int width, short* coefficients) {
    int t = threadIdx.x, k = t >> 3, r = t & 7;
    int tiles_per_row = width >> 3;
    int tile_index = blockIdx.x * TILES + k;
    int x0 = (tile_index % tiles_per_row) * 8, y0 = (tile_index / tiles_per_row) * 8;
    int f[8];
    const unsigned char* row = image + (size_t)(y0 + r) * width + x0;
    #pragma unroll
    for (int x = 0; x < 8; ++x) f[x] = row[x] - 128;
    #pragma unroll
    for (int u = 0; u < 8; ++u) {                          // row pass
        int s = 0;
        #pragma unroll
        for (int x = 0; x < 8; ++x) s += C[u][x] * f[x];
        tile[k][r][u] = descale(s, CONST_BITS - PASS1_BITS);
    }
    __syncthreads();
    int u = r;                                              // column pass: column u of tile k
    #pragma unroll
    for (int y = 0; y < 8; ++y) f[y] = tile[k][y][u];
    short* out = coefficients + (size_t)tile_index * 64;
    #pragma unroll
    for (int v = 0; v < 8; ++v) {
        int s = 0;
        #pragma unroll
        for (int y = 0; y < 8; ++y) s += C[v][y] * f[y];
        int coef = descale(s, CONST_BITS + PASS1_BITS);
        int q = QUANT[v][u];
        out[v * 8 + u] = (short)(coef >= 0 ? (coef + (q >> 1)) / q : -((-coef + (q >> 1)) / q));
    }
}

// Inverse: quantised coefficients → pixels (width w).
extern "C" __global__ void jpeg_idct(const short* coefficients, int width, unsigned char* image) {
    int t = threadIdx.x, k = t >> 3, r = t & 7;
    int tiles_per_row = width >> 3;
    int tile_index = blockIdx.x * TILES + k;
    const short* in = coefficients + (size_t)tile_index * 64;
    int g[8];
    int u = r;                                              // column pass: column u of tile k
    #pragma unroll
    for (int v = 0; v < 8; ++v) g[v] = in[v * 8 + u] * QUANT[v][u];
    #pragma unroll
    for (int y = 0; y < 8; ++y) {
        int s = 0;
        #pragma unroll
        for (int v = 0; v < 8; ++v) s += C[v][y] * g[v];
        tile[k][y][u] = descale(s, CONST_BITS - PASS1_BITS);
    }
    __syncthreads();
    #pragma unroll
    for (int x = 0; x < 8; ++x) g[x] = tile[k][r][x];       // row pass: row r of tile k
    int x0 = (tile_index % tiles_per_row) * 8, y0 = (tile_index / tiles_per_row) * 8;
    unsigned char* row = image + (size_t)(y0 + r) * width + x0;
    #pragma unroll
    for (int x = 0; x < 8; ++x) {
        int s = 0;
        #pragma unroll
        for (int v = 0; v < 8; ++v) s += C[v][x] * g[v];
        row[x] = (unsigned char)min(255, max(0, descale(s, CONST_BITS + PASS1_BITS) + 128));
    }
}
