// AES-128 ECB encryption and decryption (FIPS-197) with T-tables in shared memory, four threads
// per 16-byte block, one thread per state column (the GPU layout of Manavski, ICSPC 2007, which
// ERCBench's AES uses), written for this project. A CTA of 256 threads works on 64 blocks: it
// loads the round keys and the tables into shared memory, then each thread computes its
// column's next value every round from the four columns the row shift brings to it.

#define THREADS 256
#define ROUNDS 10

// One file-scope set of tables serves both kernels (Te or Td, then S or inverse S): the PTX
// front end charges every kernel with all the module's static shared arrays (reported).
__shared__ unsigned int T[4][256];
__shared__ unsigned int S[256];
__shared__ unsigned int round_key[4 * (ROUNDS + 1)];
__shared__ unsigned int state[THREADS];

__device__ __forceinline__ unsigned int big_endian(unsigned int w) { return __byte_perm(w, 0, 0x0123); }

// Loads tables (4 × 256 words), the last-round S-box and the round keys into shared memory and
// this thread's column of the input block into the state.
__device__ void load(const unsigned int* tables, const unsigned int* sbox, const unsigned int* keys,
                     const unsigned int* in) {
    int t = threadIdx.x;
    for (int k = 0; k < 4; ++k) T[k][t] = tables[k * 256 + t];
    S[t] = sbox[t];
    if (t < 4 * (ROUNDS + 1)) round_key[t] = keys[t];
    __syncthreads();
    state[t] = big_endian(in[blockIdx.x * THREADS + t]) ^ round_key[t & 3];
    __syncthreads();
}

// The ten rounds. Column c of a block takes row r from column c + shift·r (shift 1 to encrypt,
// 3 to decrypt); the last round has no MixColumns, so it uses the S-box alone.
template <int shift>
__device__ unsigned int rounds() {
    int t = threadIdx.x, c = t & 3;
    const unsigned int* block = state + (t & ~3);
    unsigned int s;
    for (int r = 1; r < ROUNDS; ++r) {
        s = T[0][block[c] >> 24] ^ T[1][(block[(c + shift) & 3] >> 16) & 255]
          ^ T[2][(block[(c + 2 * shift) & 3] >> 8) & 255] ^ T[3][block[(c + 3 * shift) & 3] & 255]
          ^ round_key[4 * r + c];
        __syncthreads();
        state[t] = s;
        __syncthreads();
    }
    s = (S[block[c] >> 24] << 24) | (S[(block[(c + shift) & 3] >> 16) & 255] << 16)
      | (S[(block[(c + 2 * shift) & 3] >> 8) & 255] << 8) | S[block[(c + 3 * shift) & 3] & 255];
    return s ^ round_key[4 * ROUNDS + c];
}

extern "C" __global__ void aesEncrypt128(const unsigned int* te, const unsigned int* sbox,
                                         const unsigned int* keys, const unsigned int* in,
                                         unsigned int* out) {
    load(te, sbox, keys, in);
    out[blockIdx.x * THREADS + threadIdx.x] = big_endian(rounds<1>());
}

// The equivalent inverse cipher: Td tables, the inverse S-box and the decryption key schedule.
extern "C" __global__ void aesDecrypt128(const unsigned int* td, const unsigned int* inv_sbox,
                                         const unsigned int* keys, const unsigned int* in,
                                         unsigned int* out) {
    load(td, inv_sbox, keys, in);
    out[blockIdx.x * THREADS + threadIdx.x] = big_endian(rounds<3>());
}
