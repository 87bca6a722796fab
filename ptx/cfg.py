"""Control-flow graph of a flattened kernel: basic blocks, successors, post-dominators and the
immediate post-dominator (IPDOM) of every branch — where a divergent warp reconverges
(GPGPU-Sim's SIMT-stack rule). Also used by the phase pass on real code.

Each instruction is described by ``(kind, target)``: 'seq' falls through, 'jump' always goes
to target, 'cond' goes to target or falls through, 'exit' ends the thread, 'cexit' ends it or
falls through. The virtual exit node is ``len(blocks)``; a branch whose IPDOM is the exit
reconverges at the end of the kernel (index ``n_instructions``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Block:
    start: int
    end: int                 # one past the last instruction
    succ: list[int]          # block ids (the exit node = number of blocks)


class CFG:
    def __init__(self, kinds: list[tuple[str, int | None]]):
        self.n = len(kinds)
        leaders = {0} if kinds else set()
        for i, (kind, target) in enumerate(kinds):
            if kind in ("jump", "cond") and target is not None:
                leaders.add(target)
            if kind != "seq" and i + 1 < self.n:
                leaders.add(i + 1)
        starts = sorted(x for x in leaders if x < self.n)
        self.block_of = [0] * self.n
        self.blocks: list[Block] = []
        for b, s in enumerate(starts):
            e = starts[b + 1] if b + 1 < len(starts) else self.n
            self.blocks.append(Block(s, e, []))
            for i in range(s, e):
                self.block_of[i] = b
        exit_node = len(self.blocks)
        for b, blk in enumerate(self.blocks):
            kind, target = kinds[blk.end - 1]
            nxt = self.block_of[blk.end] if blk.end < self.n else exit_node
            if kind == "seq":
                succ = [nxt]
            elif kind == "jump":
                succ = [self._at(target, exit_node)]
            elif kind == "cond":
                succ = [self._at(target, exit_node), nxt]
            elif kind == "exit":
                succ = [exit_node]
            else:                                   # cexit
                succ = [exit_node, nxt]
            blk.succ = list(dict.fromkeys(succ))
        self.exit = exit_node
        self.ipdom_block = self._ipdoms()

    def _at(self, target: int | None, exit_node: int) -> int:
        return self.block_of[target] if target is not None and target < self.n else exit_node

    def _ipdoms(self) -> list[int]:
        nb = len(self.blocks)
        full = (1 << (nb + 1)) - 1
        pdom = [full] * nb + [1 << nb]
        order = self._reverse_postorder_of_reverse()
        changed = True
        while changed:
            changed = False
            for b in order:
                meet = full
                for s in self.blocks[b].succ:
                    meet &= pdom[s]
                new = meet | (1 << b)
                if new != pdom[b]:
                    pdom[b], changed = new, True
        out = []
        for b in range(nb):
            if pdom[b] == full:                     # no path to the exit (an endless loop)
                out.append(nb)
                continue
            strict = pdom[b] & ~(1 << b)
            ip = nb
            d = strict
            while d:
                low = d & -d
                c = low.bit_length() - 1
                if pdom[c] == strict:
                    ip = c
                    break
                d &= d - 1
            out.append(ip)
        return out

    def _reverse_postorder_of_reverse(self) -> list[int]:
        """Blocks ordered so that successors come first (fast convergence)."""
        seen: set[int] = set()
        order: list[int] = []
        preds: dict[int, list[int]] = {b: [] for b in range(len(self.blocks) + 1)}
        for b, blk in enumerate(self.blocks):
            for s in blk.succ:
                preds[s].append(b)
        stack = [(self.exit, iter(preds[self.exit]))]
        seen.add(self.exit)
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                order.append(node)
            elif nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, iter(preds[nxt])))
        rest = [b for b in range(len(self.blocks)) if b not in seen]
        return [b for b in reversed(order) if b != self.exit] + rest

    def reconvergence(self, i: int) -> int:
        """The instruction where the paths of the branch at ``i`` meet again (``n`` = kernel end)."""
        ip = self.ipdom_block[self.block_of[i]]
        return self.n if ip >= len(self.blocks) else self.blocks[ip].start
