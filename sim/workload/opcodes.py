"""SASS opcodes → op classes for Accel-Sim traces, per architecture family, and the opcodes the
trace writer emits.

Only the first dot-separated token counts (``LDG.E.64.SYS`` → ``LDG``). The opcode lists are the
Pascal (sm_6x), Volta (sm_70/72), Turing (sm_75) and Ampere (sm_8x) instruction sets of NVIDIA's
CUDA binary utilities reference; the unit each runs on follows Accel-Sim's trace-driven mode
(ISA_Def tables), so both simulators put an instruction on the same kind of pipe: fp32, integer
and move/convert ops on the ALU; MUFU on the SFU; D* on FP64; LD/LDG/LDL global loads, LDS/LDSM
shared loads, shared atomics (ATOMS) as shared loads; ATOM/ATOMG/RED global atomics. Texture and
tensor-core instructions have no unit in this model and run as ALU ops (``NO_UNIT`` names them, a
trace using them is warned about). An opcode outside its family's table also runs as ALU and is
counted and warned about once per opcode (``classify``). See docs/validation.md.
"""

from __future__ import annotations

from .kernel import Op

_COMMON_ALU = """
    B2R BMSK BREV CCTL CCTLL CCTLT CS2R CSMTEST DEPBAR ERRBAR F2F F2I FADD FADD32I FCHK FFMA
    FFMA32I FLO FMNMX FMUL FMUL32I FRND FSEL FSET FSETP FSWZADD GETLMEMBASE HADD2 HFMA2 HMUL2
    HSET2 HSETP2 I2F I2I I2IP IABS IADD IADD3 IADD32I IDP IDP4A IMAD IMNMX IMUL IMUL32I ISCADD
    ISCADD32I ISETP LDC LEA LEPC LOP LOP3 LOP32I MATCH MOV MOV32I P2R PLOP3 PMTRIG POPC PRMT PSETP
    QSPC R2B R2P S2R SEL SETCTAID SETLMEMBASE SGXT SHF SHFL SHR VABSDIFF VABSDIFF4 VOTE VOTE_VTG"""
_COMMON_BRA = "BMOV BPT BRA BREAK BRX BSSY BSYNC CALL JMP JMX NANOSLEEP RET RPCMOV RTT WARPSYNC YIELD"
_COMMON_OTHER = {"MUFU": Op.SFU, "DADD": Op.FP64, "DFMA": Op.FP64, "DMUL": Op.FP64,
                 "DSETP": Op.FP64, "LD": Op.LDG, "LDG": Op.LDG, "LDL": Op.LDG, "LDS": Op.LDS,
                 "ST": Op.STG, "STG": Op.STG, "STL": Op.STG, "STS": Op.STS, "ATOM": Op.ATOM,
                 "ATOMG": Op.ATOM, "RED": Op.ATOM, "ATOMS": Op.LDS, "BAR": Op.BAR,
                 "MEMBAR": Op.MEMBAR, "EXIT": Op.EXIT, "KILL": Op.EXIT, "NOP": Op.NOP}
_TEXTURE = "TEX TLD TLD4 TMML TXD TXQ"

# per family: (extra ALU-class opcodes, extra branch-class opcodes, extra others, texture/tensor)
_EXTRA: dict[str, tuple[str, str, dict[str, Op], str]] = {
    "pascal": ("BFE BFI CSET CSETP FCMP ICMP IMADSP ISET PSET RRO SHL TEXS TLD4S TLDS VADD VMNMX "
               "XMAD IMMA", "BRK CAL CONT JCAL PBK PCNT PEXIT PRET SSY SYNC",
               {"DMNMX": Op.FP64, "DSET": Op.FP64}, _TEXTURE),
    "volta": ("HADD2_32I HFMA2_32I HMUL2_32I IMMA", "", {}, _TEXTURE + " HMMA"),
    "turing": ("HADD2_32I HFMA2_32I HMUL2_32I F2FP MOVM SHL SUATOM SULD SURED SUST R2UR S2UR "
               "UBMSK UBREV UCLEA UFLO UIADD3 UIMAD UISETP ULDC ULEA ULOP ULOP3 ULOP32I UMOV UP2UR "
               "UPLOP3 UPOPC UPRMT UPSETP UR2UP USEL USGXT USHF USHL USHR VOTEU",
               "BRXU JMXU", {"LDSM": Op.LDS}, _TEXTURE + " HMMA IMMA BMMA"),
}
_EXTRA["ampere"] = (_EXTRA["turing"][0] + " F2IP HMNMX2 I2FP LDGDEPBAR SUQUERY REDUX UF2FP",
                    "BRXU JMXU", {"LDSM": Op.LDS, "LDGSTS": Op.LDG},
                    _TEXTURE + " HMMA IMMA BMMA DMMA")

# SASS binary version (the trace's ``-binary version``, sm_XY as XY) → family
FAMILY_OF_VERSION = {60: "pascal", 61: "pascal", 62: "pascal", 70: "volta", 72: "volta",
                     75: "turing", 80: "ampere", 86: "ampere", 87: "ampere"}
FAMILIES = ("pascal", "volta", "turing", "ampere")
# the family whose binaries each preset's GPU runs (presets not listed have no such family)
FAMILY_OF_PRESET = {"gp102": "pascal", "titanx": "pascal"}
# the binary version the writer puts in traces of each family
VERSION_OF_FAMILY = {"pascal": 61, "volta": 70, "turing": 75, "ampere": 86}


def _table(family: str) -> dict[str, Op]:
    alu, bra, other, no_unit = _EXTRA[family]
    t = {name: Op.ALU for name in (_COMMON_ALU + " " + alu + " " + no_unit).split()}
    t.update({name: Op.BRA for name in (_COMMON_BRA + " " + bra).split()})
    t.update(_COMMON_OTHER)
    t.update(other)
    return t


SASS_TABLES: dict[str, dict[str, Op]] = {f: _table(f) for f in FAMILIES}
# every opcode of any family (traces without a binary version are checked against this)
SASS_TO_OP: dict[str, Op] = {k: v for f in FAMILIES for k, v in SASS_TABLES[f].items()}
# texture and tensor-core opcodes: real SASS, but no such unit in this model (they run as ALU)
NO_UNIT = frozenset(n for f in FAMILIES for n in _EXTRA[f][3].split())

# op class → the opcode the trace writer emits (a real opcode in all four families). Op.DIV has
# no SASS opcode (a divide is a MUFU.RCP-based sequence): it is written as MUFU.RCP and so reads
# back as SFU.
OP_TO_SASS: dict[Op, str] = {
    Op.ALU: "FFMA", Op.SFU: "MUFU.EX2", Op.FP64: "DFMA", Op.DIV: "MUFU.RCP", Op.LDG: "LDG.E",
    Op.STG: "STG.E", Op.LDS: "LDS", Op.STS: "STS", Op.ATOM: "ATOMG.E.ADD", Op.BRA: "BRA",
    Op.BAR: "BAR.SYNC", Op.MEMBAR: "MEMBAR.GL", Op.EXIT: "EXIT", Op.NOP: "NOP",
}


def base_opcode(opcode: str) -> str:
    return opcode.split(".", 1)[0].upper()


def classify(opcode: str, family: str | None = None) -> tuple[Op, bool]:
    """(op class, known) of a SASS opcode such as ``LDG.E.64.SYS``: known = in ``family``'s
    table (any family's when None); unknown opcodes run as ALU."""
    table = SASS_TABLES[family] if family else SASS_TO_OP
    op = table.get(base_opcode(opcode))
    return (Op.ALU, False) if op is None else (op, True)


def op_of(opcode: str) -> Op:
    """The op class of a SASS opcode (any family); unknown opcodes → ALU."""
    return classify(opcode)[0]


def unit_name(op: Op) -> str:
    """The functional-unit class an op class issues to (for messages)."""
    return {Op.ALU: "alu", Op.BRA: "alu", Op.SFU: "sfu", Op.FP64: "fp64", Op.DIV: "div",
            Op.LDG: "ldst", Op.STG: "ldst", Op.LDS: "ldst", Op.STS: "ldst",
            Op.ATOM: "ldst"}.get(op, "none")
