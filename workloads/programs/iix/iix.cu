// InvertedIndex as a Mars-style MapReduce (Mars, He et al. PACT 2008), written for this project:
// the input is a set of HTML pages; one map task per page scans it for links (href="URL") and
// emits (hash of the URL, page number) per link; the runtime sorts the pairs and groups them by
// URL; each URL's reduce task writes the distinct pages linking to it (Mars's two-pass reduce:
// ReduceCount sizes every URL's list, a prefix sum places it, Reduce writes it).
#include "../common/mars.cuh"

#define FNV_OFFSET 2166136261u
#define FNV_PRIME 16777619u

// padded to 8 bytes: the PTX front end views the constant bank as 8-byte words (reported)
__constant__ unsigned char HREF[8] = {'h', 'r', 'e', 'f', '=', '"', 0, 0};

// Scans the bytes [begin, end) of a page; for every link calls emit(hash of its URL). One flat
// loop over the bytes with a small state machine (matching href=", then hashing the URL).
template <typename Emit>
__device__ void scan_links(const unsigned char* html, int begin, int end, Emit emit) {
    int matched = 0;                            // bytes of href=" matched; 6: inside a URL
    unsigned int h = FNV_OFFSET;
    for (int i = begin; i < end; ++i) {
        unsigned char c = html[i];
        if (matched == 6) {
            if (c == '"') {
                emit((int)(h & 0x7fffffff));
                matched = 0;
                h = FNV_OFFSET;
            } else {
                h = (h ^ c) * FNV_PRIME;
            }
        } else {
            matched = c == HREF[matched] ? matched + 1 : (c == HREF[0]);
        }
    }
}

// MapCount: links per page.
extern "C" __global__ void iix_map_count(const unsigned char* html, const int* page_start,
                                         int n_pages, int* counts) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n_pages) return;
    int n = 0;
    scan_links(html, page_start[p], page_start[p + 1], [&](int) { ++n; });
    counts[p] = n;
}

// Map: (URL hash, page) per link, from the page's offset on.
extern "C" __global__ void iix_map(const unsigned char* html, const int* page_start, int n_pages,
                                   const int* offsets, int* keys, int* vals) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n_pages) return;
    int out = offsets[p];
    scan_links(html, page_start[p], page_start[p + 1], [&](int url) {
        keys[out] = url;
        vals[out] = p;
        ++out;
    });
}

// ReduceCount: the number of distinct pages in URL g's group (pairs sorted by page within it).
extern "C" __global__ void iix_reduce_count(const int* vals, const int* starts, int n_groups,
                                            int* counts) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n_groups) return;
    int n = 0;
    for (int i = starts[g]; i < starts[g + 1]; ++i) n += i == starts[g] || vals[i] != vals[i - 1];
    counts[g] = n;
}

// Reduce: URL g's distinct pages, written from its offset on.
extern "C" __global__ void iix_reduce(const int* keys, const int* vals, const int* starts,
                                      int n_groups, const int* offsets, int* urls, int* pages) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n_groups) return;
    int out = offsets[g];
    for (int i = starts[g]; i < starts[g + 1]; ++i)
        if (i == starts[g] || vals[i] != vals[i - 1]) pages[out++] = vals[i];
    urls[g] = keys[starts[g]];
}
