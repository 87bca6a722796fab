// SHA-1 (FIPS 180-4) of many independent messages, one message per thread (ERCBench's SHA1 as
// SRTF describes it: 64-thread CTAs, long dependence chains, the message schedule in shared
// memory), written for this project. The host pads the messages (FIPS 180-4 §5.1.1) and stores
// them as big-endian words, each thread's message contiguous; the 16-word schedule window of
// every thread lives in shared memory, column-major so the threads of a warp hit distinct banks.

#define THREADS 64

__device__ __forceinline__ unsigned int rotl(unsigned int x, int n) { return __funnelshift_l(x, x, n); }

extern "C" __global__ void sha1_kernel(const unsigned int* messages, int chunks,
                                       unsigned int* digests) {
    __shared__ unsigned int W[16][THREADS];
    int t = threadIdx.x;
    int id = blockIdx.x * THREADS + t;
    const unsigned int* m = messages + (size_t)id * chunks * 16;
    unsigned int h0 = 0x67452301u, h1 = 0xEFCDAB89u, h2 = 0x98BADCFEu, h3 = 0x10325476u,
                 h4 = 0xC3D2E1F0u;
    for (int c = 0; c < chunks; ++c) {
        #pragma unroll
        for (int i = 0; i < 16; ++i) W[i][t] = m[c * 16 + i];
        unsigned int a = h0, b = h1, d = h3, e = h4, cc = h2;
        #pragma unroll
        for (int i = 0; i < 80; ++i) {
            unsigned int w;
            if (i < 16) {
                w = W[i][t];
            } else {
                w = rotl(W[(i - 3) & 15][t] ^ W[(i - 8) & 15][t] ^ W[(i - 14) & 15][t]
                         ^ W[i & 15][t], 1);
                W[i & 15][t] = w;
            }
            unsigned int f, k;
            if (i < 20) {
                f = (b & cc) | (~b & d);
                k = 0x5A827999u;
            } else if (i < 40) {
                f = b ^ cc ^ d;
                k = 0x6ED9EBA1u;
            } else if (i < 60) {
                f = (b & cc) | (b & d) | (cc & d);
                k = 0x8F1BBCDCu;
            } else {
                f = b ^ cc ^ d;
                k = 0xCA62C1D6u;
            }
            unsigned int temp = rotl(a, 5) + f + e + k + w;
            e = d;
            d = cc;
            cc = rotl(b, 30);
            b = a;
            a = temp;
        }
        h0 += a; h1 += b; h2 += cc; h3 += d; h4 += e;
    }
    unsigned int* out = digests + (size_t)id * 5;
    out[0] = h0; out[1] = h1; out[2] = h2; out[3] = h3; out[4] = h4;
}
