"""SASS opcode → op class, for Accel-Sim traces, and the op class → opcode used when writing.

Only the first dot-separated token counts (``LDG.E.64.SYS`` → ``LDG``). Opcodes not in the
table map to ``Op.ALU``: most unlisted SASS instructions (moves, integer and logic ops, shuffles,
conversions) run on the SP/INT pipes with short fixed latency, which is what ALU models.
``DIV`` is not a real SASS opcode (hardware divides are MUFU.RCP + FFMA sequences); it is
accepted so that traces written by ``tracegen`` from synthetic kernels round-trip exactly.
"""

from __future__ import annotations

from .kernel import Op

SASS_TO_OP: dict[str, Op] = {
    # global / local / generic memory
    "LDG": Op.LDG, "LD": Op.LDG, "LDL": Op.LDG, "LDC": Op.ALU, "LDGSTS": Op.LDG,
    "STG": Op.STG, "ST": Op.STG, "STL": Op.STG,
    "ATOM": Op.ATOM, "ATOMG": Op.ATOM, "RED": Op.ATOM, "ATOMS": Op.ATOM,
    # shared memory
    "LDS": Op.LDS, "LDSM": Op.LDS, "STS": Op.STS,
    # transcendental and long-latency arithmetic
    "MUFU": Op.SFU, "RRO": Op.SFU, "POPC": Op.SFU, "FLO": Op.SFU, "BREV": Op.SFU,
    "DADD": Op.FP64, "DFMA": Op.FP64, "DMUL": Op.FP64, "DSETP": Op.FP64, "DMNMX": Op.FP64,
    "DSET": Op.FP64, "F2F": Op.FP64, "DIV": Op.DIV,
    # control
    "BRA": Op.BRA, "BRX": Op.BRA, "JMP": Op.BRA, "JMX": Op.BRA, "CALL": Op.BRA, "RET": Op.BRA,
    "BRK": Op.BRA, "CONT": Op.BRA, "SSY": Op.BRA, "SYNC": Op.BRA, "BSSY": Op.BRA,
    "BSYNC": Op.BRA, "WARPSYNC": Op.BRA, "KILL": Op.EXIT,
    "BAR": Op.BAR, "MEMBAR": Op.MEMBAR, "FENCE": Op.MEMBAR, "ERRBAR": Op.MEMBAR,
    "EXIT": Op.EXIT, "NOP": Op.NOP,
}

OP_TO_SASS: dict[Op, str] = {
    Op.ALU: "FFMA", Op.SFU: "MUFU.EX2", Op.FP64: "DFMA", Op.DIV: "DIV", Op.LDG: "LDG.E",
    Op.STG: "STG.E", Op.LDS: "LDS", Op.STS: "STS", Op.ATOM: "ATOMG.E.ADD", Op.BRA: "BRA",
    Op.BAR: "BAR.SYNC", Op.MEMBAR: "MEMBAR.GL", Op.EXIT: "EXIT", Op.NOP: "NOP",
}


def op_of(opcode: str) -> Op:
    """The op class of a SASS opcode such as ``LDG.E.64.SYS``; unknown opcodes → ALU."""
    return SASS_TO_OP.get(opcode.split(".", 1)[0].upper(), Op.ALU)
