"""Reconvergence at the immediate post-dominator: the order in which a warp executes the blocks
of a hand-drawn CFG, with which lanes, equals the SIMT-stack rule (GPGPU-Sim): at a divergent
branch the fall-through path runs first, then the taken path, and both meet at the branch's
IPDOM with all lanes again."""

from __future__ import annotations

import numpy as np

from ptx.cfg import CFG
from ptx.host import Context

# A:  b0 = tid & 1 == 0 ? -> EVEN : (B: odd path) -> JOIN
# EVEN (C): bit1 == 0 ? -> E0 : (D) -> JOIN2 ;  E0 (E) ; JOIN2 (F) ; JOIN (G)
#
#            A
#          /   \
#         B     C
#         |    / \
#         |   D   E
#         |    \ /
#         |     F
#          \   /
#            G
NESTED = """
.version 8.0
.target sm_75
.address_size 64
.visible .entry nested(.param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 1;
    setp.eq.u32 %p1, %r2, 0;
    @%p1 bra EVEN;
    mov.u32 %r3, 100;
    bra.uni JOIN;
EVEN:
    and.b32 %r4, %r1, 2;
    setp.eq.u32 %p2, %r4, 0;
    @%p2 bra E0;
    mov.u32 %r3, 200;
    bra.uni JOIN2;
E0:
    mov.u32 %r3, 300;
JOIN2:
    add.u32 %r3, %r3, 1;
JOIN:
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
}
"""


def lines_of(src: str) -> dict[str, int]:
    """Each statement's text (without ';') → its line number in ``src``."""
    return {ln.strip().rstrip(";"): i + 1 for i, ln in enumerate(src.splitlines()) if ln.strip()}


LINE = lines_of(NESTED)


def _stream(ctx, text, name, block=32):
    m = ctx.load_ptx(text)
    out = ctx.zeros(block, np.int32)
    rec = m.launch(name, grid=(1,), block=(block,), args=(out,))
    s = rec.streams[0]
    lines = [rec.info.statics[i].line for i in s.sids[:s.counts[0]]]
    return lines, [int(x) for x in s.masks[:s.counts[0]]], out.get()


def test_nested_if_else_runs_in_post_dominator_order():
    lines, masks, out = _stream(Context(progress=False), NESTED, "nested")
    odd = sum(1 << i for i in range(32) if i & 1)
    even_bit1 = sum(1 << i for i in range(32) if not i & 1 and i & 2)
    even_nobit1 = sum(1 << i for i in range(32) if not i & 1 and not i & 2)
    even = even_bit1 | even_nobit1
    full = 0xFFFFFFFF
    expected = [
        ("mov.u32 %r1, %tid.x", full), ("and.b32 %r2, %r1, 1", full),
        ("setp.eq.u32 %p1, %r2, 0", full), ("@%p1 bra EVEN", full),
        ("mov.u32 %r3, 100", odd), ("bra.uni JOIN", odd),              # B: fall-through first
        ("and.b32 %r4, %r1, 2", even), ("setp.eq.u32 %p2, %r4, 0", even),  # C: taken path next
        ("@%p2 bra E0", even),
        ("mov.u32 %r3, 200", even_bit1), ("bra.uni JOIN2", even_bit1),  # D
        ("mov.u32 %r3, 300", even_nobit1),                              # E
        ("add.u32 %r3, %r3, 1", even),                                  # F: C's IPDOM
        ("mul.wide.u32 %rd2, %r1, 4", full),                            # G: A's IPDOM
        ("add.s64 %rd3, %rd1, %rd2", full), ("st.global.u32 [%rd3], %r3", full),
        ("ret", full)]
    assert list(zip(lines, masks)) == [(LINE[t], m) for t, m in expected]
    tid = np.arange(32)
    assert np.array_equal(out, np.where(tid & 1, 100, np.where(tid & 2, 201, 301)))


def test_cfg_post_dominators_of_the_hand_drawn_graph():
    # the same shape as instruction kinds: 0 A(cond->3) 1 B 2 B(jump->7) 3 C(cond->6) 4 D
    # 5 D(jump->7)... laid out as blocks A=[0], B=[1,2], C=[3], D=[4,5], E=[6], F=[7], G=[8]
    kinds = [("cond", 3), ("seq", None), ("jump", 8), ("cond", 6), ("seq", None), ("jump", 7),
             ("seq", None), ("seq", None), ("exit", None)]
    g = CFG(kinds)
    assert g.reconvergence(0) == 8          # A's paths meet at G
    assert g.reconvergence(3) == 7          # C's paths meet at F
    assert [b.start for b in g.blocks] == [0, 1, 3, 4, 6, 7, 8]


LOOP = """
.version 8.0
.target sm_75
.address_size 64
.visible .entry loop(.param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 3;
    mov.u32 %r3, 0;
HEAD:
    setp.ge.u32 %p1, %r3, %r2;
    @%p1 bra DONE;
    add.u32 %r3, %r3, 1;
    bra.uni HEAD;
DONE:
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
}
"""


def test_loop_with_lane_dependent_trip_count_reconverges_after_the_loop():
    lines, masks, out = _stream(Context(progress=False), LOOP, "loop")
    assert np.array_equal(out, np.arange(32) & 3)
    at = lines_of(LOOP)
    head = [m for ln, m in zip(lines, masks) if ln == at["@%p1 bra DONE"]]   # each trip's test
    lanes_left = [sum(1 << i for i in range(32) if (i & 3) >= k) for k in range(4)]
    assert head == lanes_left                                        # lanes leave as they finish
    after = masks[lines.index(at["mul.wide.u32 %rd2, %r1, 4"]):]
    assert all(m == 0xFFFFFFFF for m in after)                       # all lanes after the loop
