// PageViewRank as a Mars-style MapReduce (Mars, He et al. PACT 2008), written for this project:
// the input is PageViewCount's output, one "URL views" line per page. The map swaps key and
// value, emitting (-views, URL hash), so the runtime's sort orders pages by descending views
// (ties by URL hash) and groups pages of equal views; the reduce gives every page its rank,
// 1 + the number of pages with more views (its group's first position).
#include "../common/mars.cuh"

#define FNV_OFFSET 2166136261u
#define FNV_PRIME 16777619u

// Map: one "URL views" line → (-views, URL hash).
extern "C" __global__ void pvr_map(const unsigned char* text, const int* line_start, int n_lines,
                                   int* keys, int* vals) {
    int line = blockIdx.x * blockDim.x + threadIdx.x;
    if (line >= n_lines) return;
    int i = line_start[line], end = line_start[line + 1];
    unsigned int h = FNV_OFFSET;
    for (; i < end && text[i] > ' '; ++i) h = (h ^ text[i]) * FNV_PRIME;
    int views = 0;
    for (++i; i < end && text[i] >= '0' && text[i] <= '9'; ++i) views = views * 10 + (text[i] - '0');
    keys[line] = -views;
    vals[line] = (int)(h & 0x7fffffff);
}

// Reduce: every page of a group (equal views) gets the group's first position + 1 as its rank.
extern "C" __global__ void pvr_rank(const int* keys, const int* group_of, const int* starts,
                                    int n, int* views, int* ranks) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    // group_of is the exclusive scan of the group-start flags: count this pair's own start
    int g = group_of[i] + (i == 0 || keys[i] != keys[i - 1]) - 1;
    views[i] = -keys[i];
    ranks[i] = starts[g] + 1;
}
