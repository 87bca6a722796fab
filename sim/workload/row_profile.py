"""Consecutive-CTA row sharing and CTAs per row ([OWL Table 4]) of a workload's global
memory accesses under a DRAM address map.

For each kernel, every DRAM row (channel, bank, row) collects the set S of CTAs whose global
loads, stores or atomics touch it. A row scores |{c in S : c-1 in S or c+1 in S}| / |S| (0 for a
row of one CTA: our formula for [OWL Table 4]'s rows); ``cons_cta_row_sharing`` is the mean score
over all rows touched, ``ctas_per_row`` the mean |S|. These are properties of the kernel's data
layout, profiled from the addresses the CTAs issue (computed from the trace), before any cache
filters them: the model's DRAM requests carry no CTA id.
"""

from __future__ import annotations

from sim.workload.kernel import GLOBAL_OPS, Workload


def row_ctas(workload: Workload, dram, line_bytes: int = 64, warp_size: int = 32) -> list[dict]:
    """Per kernel: {(channel, bank, row): set of CTA ids touching it}."""
    from sim.memory.dram import AddressMap
    amap = AddressMap(dram, line_bytes, dram.channels)
    shift = line_bytes.bit_length() - 1
    out = []
    for k in workload.kernels:
        rows: dict[tuple[int, int, int], set[int]] = {}
        for cta in range(k.n_ctas):
            lines: set[int] = set()
            for w in range(k.warps_per_cta(warp_size)):
                for ins in k.stream(cta, w):
                    if ins.op in GLOBAL_OPS and ins.addrs:
                        lines.update(a >> shift for a in ins.addrs)
            for line in lines:
                rows.setdefault(amap.locate(line << shift), set()).add(cta)
        out.append(rows)
    return out


def row_sharing(workload: Workload, dram, line_bytes: int = 64, warp_size: int = 32) -> dict:
    """{"rows", "cons_cta_row_sharing", "ctas_per_row"} over the rows of every kernel."""
    scores, sizes = [], []
    for rows in row_ctas(workload, dram, line_bytes, warp_size):
        for ctas in rows.values():
            sizes.append(len(ctas))
            paired = sum(1 for c in ctas if c - 1 in ctas or c + 1 in ctas)
            scores.append(paired / len(ctas))
    n = len(sizes)
    return {"rows": n, "cons_cta_row_sharing": sum(scores) / n if n else 0.0,
            "ctas_per_row": sum(sizes) / n if n else 0.0}
