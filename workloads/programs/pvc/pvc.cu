// PageViewCount as two Mars-style MapReduces (Mars, He et al. PACT 2008), written for this
// project. The input is a web log, one "URL IP time" line per view. MapReduce 1 removes
// duplicate (URL, IP) entries: the map emits (hash of the URL, hash of the IP) per line, the
// runtime sorts and groups equal pairs, the reduce keeps one per group. MapReduce 2 counts the
// distinct views of each page: the map emits (URL hash, 1), the reduce sums each page's group.
#include "../common/mars.cuh"

#define FNV_OFFSET 2166136261u
#define FNV_PRIME 16777619u

// FNV-1a of the bytes from *pos up to the next byte <= ' '; *pos ends past that separator.
__device__ int hash_field(const unsigned char* text, int* pos, int end) {
    unsigned int h = FNV_OFFSET;
    int i = *pos;
    while (i < end && text[i] > ' ') {
        h = (h ^ text[i]) * FNV_PRIME;
        ++i;
    }
    *pos = i + 1;
    return (int)(h & 0x7fffffff);
}

// Map 1: one log line → (URL hash, IP hash).
extern "C" __global__ void pvc_map_entries(const unsigned char* text, const int* line_start,
                                           int n_lines, int* keys, int* vals) {
    int line = blockIdx.x * blockDim.x + threadIdx.x;
    if (line >= n_lines) return;
    int pos = line_start[line], end = line_start[line + 1];
    int url = hash_field(text, &pos, end);
    int ip = hash_field(text, &pos, end);
    keys[line] = url;
    vals[line] = ip;
}

// Reduce 1: one distinct (URL, IP) entry per group; its URL is the next MapReduce's input.
extern "C" __global__ void pvc_reduce_entries(const int* keys, const int* starts, int n_groups,
                                              int* entry_urls) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n_groups) return;
    entry_urls[g] = keys[starts[g]];
}

// Map 2: a distinct entry → (URL hash, 1).
extern "C" __global__ void pvc_map_pages(const int* entry_urls, int n_entries, int* keys,
                                         int* vals) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= n_entries) return;
    keys[e] = entry_urls[e];
    vals[e] = 1;
}

// Reduce 2: the number of distinct views of each page.
extern "C" __global__ void pvc_reduce_pages(const int* keys, const int* vals, const int* starts,
                                            int n_groups, int* pages, int* views) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n_groups) return;
    int sum = 0;
    for (int i = starts[g]; i < starts[g + 1]; ++i) sum += vals[i];
    pages[g] = keys[starts[g]];
    views[g] = sum;
}
