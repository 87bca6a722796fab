"""PTX virtual registers → architectural registers for the timing model's scoreboard.

PTX has unbounded virtual registers; the scoreboard needs the 255 registers (R0–R254) and 7
predicates (P0–P6) a SASS kernel names. Linear scan over live intervals (the hull of the
blocks where a register is live, from a liveness pass on the CFG) assigns them; a 64-bit value
takes an aligned pair and is named by its low register, as SASS lists it. Registers written
only by elided instructions (parameters, constant addresses) are constant operands in SASS:
they get no register and create no dependence. When more registers are live than exist, the
overflow reuses registers round-robin (false dependences, counted in ``spills``).
"""

from __future__ import annotations

from .cfg import CFG

N_REGS = 255
N_PREDS = 7
PRED_BASE = 256


def liveness(cfg: CFG, defs: list[list[str]], uses: list[list[str]]) -> list[set[str]]:
    """Registers live into each block."""
    nb = len(cfg.blocks)
    gen: list[set[str]] = []
    kill: list[set[str]] = []
    for blk in cfg.blocks:
        g: set[str] = set()
        k: set[str] = set()
        for i in range(blk.start, blk.end):
            g.update(u for u in uses[i] if u not in k)
            k.update(defs[i])
        gen.append(g)
        kill.append(k)
    live_in: list[set[str]] = [set() for _ in range(nb)]
    changed = True
    while changed:
        changed = False
        for b in range(nb - 1, -1, -1):
            out: set[str] = set()
            for s in cfg.blocks[b].succ:
                if s < nb:
                    out |= live_in[s]
            new = gen[b] | (out - kill[b])
            if new != live_in[b]:
                live_in[b], changed = new, True
    return live_in


def allocate(cfg: CFG, defs: list[list[str]], uses: list[list[str]], types: dict[str, str],
             elided: set[int]) -> tuple[dict[str, int], int]:
    """(register name → architectural number, spills). Constant registers are absent."""
    written = {r for i, d in enumerate(defs) if i not in elided for r in d}
    keep = {r for ds in defs for r in ds} | {r for us in uses for r in us}
    keep &= written
    live_in = liveness(cfg, [[r for r in d if r in keep] for d in defs],
                       [[r for r in u if r in keep] for u in uses])
    lo: dict[str, int] = {}
    hi: dict[str, int] = {}

    def touch(r: str, i: int) -> None:
        if r in keep:
            lo[r] = min(lo.get(r, i), i)
            hi[r] = max(hi.get(r, i), i)

    for i in range(cfg.n):
        for r in defs[i]:
            touch(r, i)
        for r in uses[i]:
            touch(r, i)
    nb = len(cfg.blocks)
    for b, blk in enumerate(cfg.blocks):
        outs: set[str] = set()
        for s in blk.succ:
            if s < nb:
                outs |= live_in[s]
        for r in live_in[b]:
            touch(r, blk.start)
        for r in outs:
            touch(r, blk.end - 1)
    order = sorted(lo, key=lambda r: (lo[r], r))
    out: dict[str, int] = {}
    spills = 0
    free_r = [True] * N_REGS
    free_p = [True] * N_PREDS
    active: list[tuple[int, str]] = []
    rr = 0
    for r in order:
        start = lo[r]
        still = []
        for end, name in active:
            if end < start:
                _release(out[name], types[name], free_r, free_p)
            else:
                still.append((end, name))
        active = still
        t = types[r]
        if t == "pred":
            slot = next((k for k in range(N_PREDS) if free_p[k]), None)
            if slot is None:
                spills += 1
                slot = rr % N_PREDS
                rr += 1
            else:
                free_p[slot] = False
            out[r] = PRED_BASE + slot
        else:
            wide = t.endswith("64") or t == "f64"
            step = 2 if wide else 1
            slot = next((k for k in range(0, N_REGS - step + 1, step)
                         if all(free_r[k:k + step])), None)
            if slot is None:
                spills += 1
                slot = (rr * step) % (N_REGS - 1)
                rr += 1
            else:
                for k in range(slot, slot + step):
                    free_r[k] = False
            out[r] = slot
        active.append((hi[r], r))
    return out, spills


def _release(num: int, t: str, free_r: list[bool], free_p: list[bool]) -> None:
    if num >= PRED_BASE:
        free_p[num - PRED_BASE] = True
        return
    step = 2 if (t.endswith("64") or t == "f64") else 1
    for k in range(num, min(num + step, N_REGS)):
        free_r[k] = True
