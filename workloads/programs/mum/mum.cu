// Exact matching of short reads against a reference through its suffix tree (MUMmerGPU,
// Schatz et al., BMC Bioinformatics 2007), written for this project. The host builds the suffix
// tree of the reference (from its suffix array) and flattens it into node arrays: 4 child links
// per node (A, C, G, T), the node's string depth and the start of a suffix below it (its edge
// labels are substrings of the reference). mum_match: one thread per read walks the tree from
// the root for every start offset, following child links and comparing edge characters until
// the first mismatch: dependent loads all the way (pointer chasing). (MUMmerGPU moves between
// offsets by suffix links; restarting at the root gives the same matches with more steps.)
// mum_report (MUMmerGPU's print kernel): keeps the left-maximal matches of at least min_match
// bases and gives their reference position.

extern "C" __global__ void mum_match(const int* child, const int* depth, const int* pos,
                                     const unsigned char* reference, const unsigned char* reads,
                                     int n_reads, int read_len, int min_match, int* match_len,
                                     int* match_node) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n_reads) return;
    const unsigned char* q = reads + (size_t)r * read_len;
    int offsets = read_len - min_match + 1;
    for (int i = 0; i < offsets; ++i) {
        int v = 0, d = 0, end = 0;
        while (i + d < read_len) {
            int u = child[4 * v + q[i + d]];
            if (u < 0) break;
            end = u;
            int du = depth[u], pu = pos[u];
            int limit = min(du, read_len - i);
            int k = d + 1;
            while (k < limit && reference[pu + k] == q[i + k]) ++k;
            d = k;
            if (k < du) break;                      // a mismatch on the edge, or the read ended
            v = u;
        }
        match_len[r * offsets + i] = d;
        match_node[r * offsets + i] = end;
    }
}

extern "C" __global__ void mum_report(const int* match_len, const int* match_node, const int* pos,
                                      int n_matches, int offsets, int min_match, int* out_len,
                                      int* out_pos) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n_matches) return;
    int len = match_len[j];
    bool left_maximal = j % offsets == 0 || match_len[j - 1] <= len;
    bool keep = len >= min_match && left_maximal;
    out_len[j] = keep ? len : 0;
    out_pos[j] = keep ? pos[match_node[j]] : -1;
}
