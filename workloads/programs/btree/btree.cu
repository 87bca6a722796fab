// B+ tree queries on the GPU in the form the Rodinia b+tree benchmark describes (Fang et al.,
// "Accelerating B+tree search...", and the Rodinia documentation): the tree is built on the host
// and flattened into an array of nodes (root first); every CTA answers one query and its 256
// threads inspect the 256 key slots of the current node in parallel, one tree level per step,
// with the per-query node offsets kept in global arrays. Written for this project.

#define ORDER 256                          // key slots per node = threads per CTA

struct Node {
    int location;
    int indices[ORDER + 1];                // child node (internal) or record index (leaf)
    int keys[ORDER + 1];                   // keys[i]: smallest key under slot i; unused: INT_MAX
    int is_leaf;
    int num_keys;
};

// find_k: descend `height` levels to the leaf that may hold keys[q], then the record's value.
extern "C" __global__ void find_k(int height, const Node* nodes, long long node_count,
                                  const int* records, long long* current, long long* offset,
                                  const int* keys, int* answers) {
    int q = blockIdx.x, t = threadIdx.x;
    int key = keys[q];
    for (int level = 0; level < height; ++level) {
        const Node* n = nodes + current[q];
        if (n->keys[t] <= key && n->keys[t + 1] > key) {
            long long child = n->indices[t];
            if (child < node_count) offset[q] = child;
        }
        __syncthreads();
        if (t == 0) current[q] = offset[q];
        __syncthreads();
    }
    const Node* leaf = nodes + current[q];
    if (leaf->keys[t] == key) answers[q] = records[leaf->indices[t]];
}

// find_range_k: the same descent for the two ends of a range side by side, then the record
// index of the start and the number of records up to the end.
extern "C" __global__ void find_range_k(int height, const Node* nodes, long long node_count,
                                        long long* current, long long* offset, long long* last,
                                        long long* last_offset, const int* starts,
                                        const int* ends, int* rec_start, int* rec_length) {
    int q = blockIdx.x, t = threadIdx.x;
    int lo = starts[q], hi = ends[q];
    for (int level = 0; level < height; ++level) {
        const Node* a = nodes + current[q];
        if (a->keys[t] <= lo && a->keys[t + 1] > lo) {
            long long child = a->indices[t];
            if (child < node_count) offset[q] = child;
        }
        const Node* b = nodes + last[q];
        if (b->keys[t] <= hi && b->keys[t + 1] > hi) {
            long long child = b->indices[t];
            if (child < node_count) last_offset[q] = child;
        }
        __syncthreads();
        if (t == 0) {
            current[q] = offset[q];
            last[q] = last_offset[q];
        }
        __syncthreads();
    }
    const Node* a = nodes + current[q];
    if (a->keys[t] == lo) rec_start[q] = a->indices[t];
    __syncthreads();
    const Node* b = nodes + last[q];
    if (b->keys[t] == hi) rec_length[q] = b->indices[t] - rec_start[q] + 1;
}
