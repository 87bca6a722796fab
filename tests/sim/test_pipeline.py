"""Issue timing of one sub-core: latencies, initiation intervals, issue interval, dual issue,
shared-memory bank conflicts and the fixed memory's latency (numbers from the config)."""

import pytest

from sim.workload.kernel import Instr, Op
from sim_helpers import config, run
from sim_kernels import dependent_chain, independent, make_kernel, workload


def cycles(body, preset="tiny", *overrides, **kernel_kw):
    return run(workload(make_kernel("k", body, **kernel_kw)), preset, *overrides)["cycles"]


@pytest.mark.parametrize("preset,op,field", [("tiny", Op.ALU, "alu_latency"), ("tiny", Op.SFU, "sfu_latency"),
                                              ("gtx480", Op.ALU, "alu_latency"), ("tiny", Op.FP64, "fp64_latency"),
                                              ("tiny", Op.DIV, "div_latency")])
def test_dependent_chain_takes_latency_per_op(preset, op, field):
    lat = getattr(config(preset).units, field)
    n = 12
    extra = cycles(lambda c, w: dependent_chain(2 * n, op), preset) - cycles(lambda c, w: dependent_chain(n, op), preset)
    assert extra == n * lat


def test_first_issue_two_cycles_after_cta_placement():
    # CTA placed at the end of cycle 0, fetch/decode in cycle 1, issue in cycle 2
    # ([GPGPU-Sim scoreboard.cc]); the single ALU op writes back alu_latency later, then the warp
    # (already exited) finishes.
    lat = config().units.alu_latency
    assert cycles(lambda c, w: [Instr(Op.ALU, dst=(1,), src=(0,))]) == 2 + lat + 1


@pytest.mark.parametrize("overrides,per_op", [((), 1), (("units.alu_ii=2",), 2), (("sm.issue_interval=3",), 3),
                                               (("units.alu_ii=2", "sm.issue_interval=3"), 3)])
def test_independent_stream_rate(overrides, per_op):
    n = 40
    extra = cycles(lambda c, w: independent(2 * n), "tiny", *overrides) - cycles(lambda c, w: independent(n), "tiny", *overrides)
    assert extra == n * per_op


def test_two_schedulers_issue_in_parallel():
    # Warps in slots 0 and 1 sit on schedulers 0 and 1 (slot i → i mod S): each issues one
    # instruction per cycle, so n more instructions per warp cost n more cycles.
    n = 40
    slope = lambda block: (cycles(lambda c, w: independent(2 * n), block=block)
                           - cycles(lambda c, w: independent(n), block=block))
    assert slope((64, 1, 1)) == n
    # Four warps: slots 0, 2 share scheduler 0 and 1, 3 scheduler 1 → 2n more cycles. (One fetch
    # per cycle fills two instructions, so fetch keeps up with two issues per cycle.)
    assert config().sm.fetch_per_cycle * config().sm.ib_entries == 2
    assert slope((128, 1, 1)) == 2 * n


def test_dual_issue_needs_different_units():
    n = 40
    alu_sfu = lambda k: [Instr(Op.ALU if i % 2 == 0 else Op.SFU, dst=(1 + i % 64,), src=(0,)) for i in range(k)]
    sfu_ii = config().units.sfu_ii
    base = ("sm.dual_issue=true", "units.sfu_ii=1")
    # ALU+SFU pairs: two instructions per cycle.
    assert cycles(lambda c, w: alu_sfu(4 * n), "tiny", *base) - cycles(lambda c, w: alu_sfu(2 * n), "tiny", *base) == n
    # ALU only: the second instruction would use the same unit, so one per cycle.
    assert (cycles(lambda c, w: independent(2 * n), "tiny", *base)
            - cycles(lambda c, w: independent(n), "tiny", *base)) == n
    # Off by default: one per cycle even for ALU+SFU pairs.
    assert cycles(lambda c, w: alu_sfu(2 * n), "tiny", "units.sfu_ii=1") - cycles(lambda c, w: alu_sfu(n), "tiny", "units.sfu_ii=1") == n
    assert sfu_ii > 1


def test_war_free_waw_blocks():
    # Writing a register whose previous write is pending (WAW) waits for it, like RAW.
    lat = config().units.alu_latency
    waw = lambda k: [Instr(Op.ALU, dst=(5,), src=(0,)) for _ in range(k)]
    assert cycles(lambda c, w: waw(20)) - cycles(lambda c, w: waw(10)) == 10 * lat


def test_shared_memory_latency_and_bank_conflicts():
    u = config().units
    same_word = tuple([0] * 32)                                   # broadcast: one pass
    conflict = tuple(t * 4 * u.smem_banks for t in range(32))      # 32 words in bank 0
    chain = lambda addrs, k: [Instr(Op.LDS, dst=(1,), src=(1,), addrs=addrs) for _ in range(k)]
    assert cycles(lambda c, w: chain(same_word, 8)) - cycles(lambda c, w: chain(same_word, 4)) == 4 * u.smem_latency
    passes = 32
    per = u.smem_latency + (passes - 1) * u.ldst_ii
    assert cycles(lambda c, w: chain(conflict, 8)) - cycles(lambda c, w: chain(conflict, 4)) == 4 * per


def test_fixed_memory_dependent_load_latency():
    cfg = config()
    d = cfg.dram
    bytes_per_cycle = d.channels * d.bus_bytes * d.data_rate * d.clock_mhz / cfg.core_clock_mhz
    line = cfg.l1.line_bytes
    assert line % bytes_per_cycle == 0   # keeps the expected number an integer on tiny
    per_load = int(line / bytes_per_cycle) + d.fixed_latency + 2 * cfg.icnt.latency
    chain = lambda k: [Instr(Op.LDG, dst=(1,), src=(1,), addrs=tuple(range(0, 128, 4))) for _ in range(k)]
    assert cycles(lambda c, w: chain(6)) - cycles(lambda c, w: chain(3)) == 3 * per_load


def test_issue_slots_add_up():
    r = run(workload(make_kernel("k", lambda c, w: independent(30) + dependent_chain(5),
                                 grid=(6, 1, 1), block=(96, 1, 1))))
    cfg = config()
    assert sum(r["issue"].values()) == r["cycles"] * cfg.sm.count * cfg.sm.subcores
    assert r["issue"]["issued"] == r["warp_insts"] == 6 * 3 * (30 + 5 + 1)


@pytest.mark.parametrize("op,field", [(Op.ALU, "alu_latency"), (Op.SFU, "sfu_latency"), (Op.DIV, "div_latency")])
def test_operand_stage_delays_each_dependent_op_but_not_throughput(op, field):
    # units.operand_latency: every op reads its operands first, so a dependent op issues
    # operand_latency + latency after its producer; independent ops still issue one per ii
    lat, n, oc = getattr(config().units, field), 12, "units.operand_latency=5"
    def extra(*ov):
        return cycles(lambda c, w: dependent_chain(2 * n, op), "tiny", *ov) - \
            cycles(lambda c, w: dependent_chain(n, op), "tiny", *ov)
    assert extra() == n * lat
    assert extra(oc) == n * (lat + 5)
    one = cycles(lambda c, w: independent(n), "tiny", oc) - cycles(lambda c, w: independent(n), "tiny")
    two = cycles(lambda c, w: independent(2 * n), "tiny", oc) - cycles(lambda c, w: independent(2 * n), "tiny")
    assert one == two == 5          # the stage adds its cycles to the last result only


@pytest.mark.parametrize("preset", ["titanx", "gp102"])
def test_accelsim_presets_read_operands_as_accelsim(preset):
    units = config(preset).units         # SM6_TITANX: 4/20 execute, 5 read-operand/dispatch/wb
    assert (units.alu_latency, units.sfu_latency, units.operand_latency) == (4, 20, 5)
    assert units.ldst_sector_cycles == 1        # one sector request per cycle (shader.cc)
    for name in ("tiny", "gtx480", "ikra_15cu", "thesis"):
        assert config(name).units.operand_latency == 0
        assert config(name).units.ldst_sector_cycles == 0



def global_loads(n: int, stride: int) -> list[Instr]:
    """n independent global loads of 32 threads, ``stride`` bytes apart (distinct lines)."""
    return [Instr(Op.LDG, dst=(2 + i,), src=(0,),
                  addrs=tuple(i * 4096 + t * stride for t in range(32))) for i in range(n)]


class RecordingMemory:
    """Accepts every access and completes it 10 cycles later; records the issue cycles."""

    def __init__(self):
        self.issued: list[int] = []
        self.due: list[tuple[int, int, object]] = []
        self.cb = {}

    def connect(self, sm_id, on_complete):
        self.cb[sm_id] = on_complete

    def issue(self, now, sm_id, instr, token):
        self.issued.append(now)
        self.due.append((now + 10, sm_id, token))
        return True

    def tick(self, now):
        for d in [d for d in self.due if d[0] <= now]:
            self.due.remove(d)
            self.cb[d[1]](d[2], d[0])

    def next_event(self):
        return min(d[0] for d in self.due) if self.due else None

    def kernel_boundary(self, now, finished, next_kernel):
        pass

    def busy(self):
        return bool(self.due)

    def stats(self):
        return {}


@pytest.mark.parametrize("stride,sectors", [(4, 4), (1, 1), (8, 8)])
@pytest.mark.parametrize("per", [0, 1, 2])
def test_ldst_sector_cycles_hold_the_unit_per_sector(stride, sectors, per):
    # units.ldst_sector_cycles: the LD/ST unit sends one sector request per cycle, so each load
    # of ``sectors`` 32-byte sectors keeps the next one out for that many cycles (at least ii)
    mem = RecordingMemory()
    run(workload(make_kernel("k", lambda c, w: global_loads(6, stride))), "tiny",
        f"units.ldst_sector_cycles={per}", memory=mem)
    gaps = {b - a for a, b in zip(mem.issued, mem.issued[1:])}
    ii = config().units.ldst_ii
    assert gaps == {max(ii, per * sectors)}
