// WordCount as a Mars-style MapReduce (Mars, He et al. PACT 2008), written for this project: one
// map task per text line emits (hash of the word, 1) for every word; the runtime sorts and
// groups the pairs by word; one reduce task per distinct word sums its ones.
#include "../common/mars.cuh"

#define FNV_OFFSET 2166136261u
#define FNV_PRIME 16777619u

// MapCount: the number of words (maximal runs of bytes above ' ') in each line.
extern "C" __global__ void wc_map_count(const unsigned char* text, const int* line_start,
                                        int n_lines, int* counts) {
    int line = blockIdx.x * blockDim.x + threadIdx.x;
    if (line >= n_lines) return;
    int words = 0;
    bool in_word = false;
    for (int i = line_start[line]; i < line_start[line + 1]; ++i) {
        bool letter = text[i] > ' ';
        words += letter && !in_word;
        in_word = letter;
    }
    counts[line] = words;
}

// Map: (FNV-1a hash of each word, 1) written from the line's offset on.
extern "C" __global__ void wc_map(const unsigned char* text, const int* line_start, int n_lines,
                                  const int* offsets, int* keys, int* vals) {
    int line = blockIdx.x * blockDim.x + threadIdx.x;
    if (line >= n_lines) return;
    int out = offsets[line];
    unsigned int h = FNV_OFFSET;
    bool in_word = false;
    for (int i = line_start[line]; i < line_start[line + 1]; ++i) {
        unsigned char c = text[i];
        if (c > ' ') {
            h = (h ^ c) * FNV_PRIME;
            in_word = true;
        } else if (in_word) {
            keys[out] = h & 0x7fffffff;
            vals[out] = 1;
            ++out;
            h = FNV_OFFSET;
            in_word = false;
        }
    }
    if (in_word) {
        keys[out] = h & 0x7fffffff;
        vals[out] = 1;
    }
}

// Reduce: one thread per distinct word sums the values of its group.
extern "C" __global__ void wc_reduce(const int* keys, const int* vals, const int* starts,
                                     int n_groups, int* words, int* counts) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n_groups) return;
    int sum = 0;
    for (int i = starts[g]; i < starts[g + 1]; ++i) sum += vals[i];
    words[g] = keys[starts[g]];
    counts[g] = sum;
}
