"""The suffix tree of a DNA reference for the mum program, built on the host as MUMmerGPU
does (here from the suffix array and LCP array), flattened into arrays: ``child`` (4 links per
node for A, C, G, T; -1 none), ``depth`` (string depth), ``pos`` (the start of a suffix in the
node's subtree). Node 0 is the root. The text is the reference (codes 0-3) plus a terminator
(code 4) that no read matches."""

from __future__ import annotations

import numpy as np

TERMINATOR = 4


def suffix_array(text: np.ndarray) -> np.ndarray:
    """Suffix array by prefix doubling (the terminator, code 4, sorts first: it is mapped to 0)."""
    n = len(text)
    rank = np.where(text == TERMINATOR, 0, text.astype(np.int64) + 1)
    idx = np.arange(n)
    k = 1
    while True:
        second = np.where(idx + k < n, rank[np.minimum(idx + k, n - 1)] + 1, 0)
        sa = np.lexsort((second, rank))
        key = rank[sa] * (n + 2) + second[sa]
        new = np.empty(n, np.int64)
        new[sa] = np.concatenate(([0], np.cumsum(key[1:] != key[:-1])))
        rank = new
        if rank.max() == n - 1:
            return sa
        k *= 2


def lcp_array(text: np.ndarray, sa: np.ndarray) -> np.ndarray:
    """lcp[k] = longest common prefix of suffixes sa[k-1] and sa[k] (Kasai et al., 2001)."""
    n = len(text)
    t = text.tolist()
    rank = np.empty(n, np.int64)
    rank[sa] = np.arange(n)
    lcp = [0] * n
    h = 0
    sal = sa.tolist()
    for i, r in enumerate(rank.tolist()):
        if r > 0:
            j = sal[r - 1]
            while i + h < n and j + h < n and t[i + h] == t[j + h]:
                h += 1
            lcp[r] = h
            h = max(h - 1, 0)
        else:
            h = 0
    return np.array(lcp, np.int64)


def build(reference: np.ndarray) -> dict[str, np.ndarray]:
    """The flattened suffix tree of ``reference`` (codes 0-3); also ``text`` with the terminator."""
    text = np.concatenate([reference.astype(np.uint8), [TERMINATOR]]).astype(np.uint8)
    n = len(text)
    sa = suffix_array(text)
    lcp = lcp_array(text, sa)
    t = text.tolist()
    child = [[-1] * 4]
    depth, pos = [0], [0]

    def new_node(d: int, p: int) -> int:
        child.append([-1] * 4)
        depth.append(d)
        pos.append(p)
        return len(depth) - 1

    def link(parent: int, node: int) -> None:
        c = t[pos[node] + depth[parent]]
        if c != TERMINATOR:
            child[parent][c] = node

    stack = [0]
    for k, start in enumerate(sa.tolist()):
        h = int(lcp[k]) if k else 0
        last = -1
        while depth[stack[-1]] > h:
            last = stack.pop()
        if depth[stack[-1]] < h:                   # split: a new internal node at depth h
            w = new_node(h, pos[last])
            link(stack[-1], w)
            link(w, last)
            stack.append(w)
        leaf = new_node(n - start, start)
        link(stack[-1], leaf)
        stack.append(leaf)
    return {"child": np.array(child, np.int32).reshape(-1), "depth": np.array(depth, np.int32),
            "pos": np.array(pos, np.int32), "text": text}
