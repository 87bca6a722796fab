// SimilarityScore as a Mars-style MapReduce (Mars, He et al. PACT 2008), written for this
// project: every map task takes one pair of documents and computes the cosine similarity of
// their feature vectors, a·b / (|a| |b|), emitting (score, pair); there is no reduce, the
// runtime's sort orders the pairs by descending score (the key is the negated bit pattern of
// the non-negative float score, ties by pair number).
#include "../common/mars.cuh"

// Map: pair p = (first[p], second[p]) → (-bits(score), p).
extern "C" __global__ void ssc_map(const float* features, int dims, const int* first,
                                   const int* second, int n_pairs, int* keys, int* vals) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n_pairs) return;
    const float* a = features + (size_t)first[p] * dims;
    const float* b = features + (size_t)second[p] * dims;
    float dot = 0.0f, aa = 0.0f, bb = 0.0f;
    for (int d = 0; d < dims; ++d) {
        float x = a[d], y = b[d];
        dot += x * y;
        aa += x * x;
        bb += y * y;
    }
    float score = aa > 0.0f && bb > 0.0f ? dot / sqrtf(aa * bb) : 0.0f;
    keys[p] = -__float_as_int(score);
    vals[p] = p;
}

// The sorted pairs as (score, first document, second document).
extern "C" __global__ void ssc_output(const int* keys, const int* vals, const int* first,
                                      const int* second, int n_pairs, float* scores, int* doc_a,
                                      int* doc_b) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_pairs) return;
    int p = vals[i];
    scores[i] = __int_as_float(-keys[i]);
    doc_a[i] = first[p];
    doc_b[i] = second[p];
}
