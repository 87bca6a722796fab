"""SASS opcodes → op classes for Accel-Sim traces, per architecture family, and the opcodes the
trace writer emits.

Only the first dot-separated token counts (``LDG.E.64.SYS`` → ``LDG``). Each family's table
holds the opcodes of Accel-Sim's trace-driven tables (``gpu-simulator/ISA_Def/*_opcode.h`` of
accel-sim-framework@73f9fac6) with the pipe Accel-Sim issues each to (its ``uarch_op_t``), so
both simulators put an instruction on the same kind of unit:

    sp, int, alu  SP_OP, INTP_OP, ALU_OP (Volta and later: int/alu on the INT pipe)  → ALU
    sfu           SFU_OP (MUFU)                                                     → SFU
    dp            DP_OP                                                             → FP64
    bra           BRANCH_OP, CALL_OPS, RET_OPS and the branch unit (SPECIALIZED_UNIT_1) → BRA
    tex, tensor   SPECIALIZED_UNIT_2 / _3: no such unit here, run on the ALU and warned about
    udp           uniform datapath (SPECIALIZED_UNIT_4, Turing and later)           → ALU
    load, store   by name: LD/LDG/LDL/LDGSTS → LDG, LDS/LDSM → LDS, ST/STG/STL → STG,
                  STS → STS, ATOM/ATOMG/RED → ATOM, ATOMS (a shared atomic) → LDS
    membar, bar, exit                                                              → MEMBAR, BAR, EXIT

Binary versions (the trace's ``-binary version``): Accel-Sim ships tables for Kepler (35),
Pascal (60, 61), Volta (70), Turing (75) and Ampere (80, 86) and exits on any other version.
Here 37 (GK210) reads with the Kepler table, Maxwell 50/52/53 with the Pascal one (NVIDIA
documents one "Maxwell and Pascal" instruction set), 62 with Pascal's, 72 with Volta's, 87/89
with Ampere's, and Hopper 90 with Ampere's plus the sm_90 additions of NVIDIA's CUDA binary
utilities reference (``_HOPPER``; warpgroup MMA and TMA/bulk copies have no unit here and are
warned about). An opcode outside its family's table runs as ALU and is counted and warned about
once per opcode (``classify``). See docs/validation.md.
"""

from __future__ import annotations

from .kernel import Op

# Accel-Sim's tables, per family: pipe → opcodes (accel-sim-framework@73f9fac6 ISA_Def)
_KEPLER = {
    "sp": "FFMA FFMA32I FADD FADD32I FCMP FMUL FMUL32I FMNMX FSWZ FSET FSETP FCHK RRO",
    "sfu": "MUFU", "dp": "DFMA DADD DMUL DMNMX DSET DSETP",
    "int": "IMAD IMADSP IMUL IMUL32I IADD IADD32I ISUB ISCADD ISCADD32I ISAD IMNMX BFE BFI SHR "
           "SHL SHF LOP LOP32I FLO ISET ISETP ICMP POPC",
    "alu": "F2F F2I I2F I2I MOV MOV32I SEL PRMT SHFL P2R R2P CSET CSETP PSET PSETP LDC CCTL "
           "CCTLL NOP S2R B2R VOTE",
    "tex": "TEX TLD TLD4 TXQ",
    "load": "LD LDG LDL LDS LDSLK SUCLAMP SUBFM SUEAU SULDGA",
    "store": "ST STL STS STSCUL ATOM RED SUSTGA",
    "membar": "MEMBAR", "bra": "BRA BRX JMP JMX BPT CAL JCAL RET BRK CONT SSY PBK PCNT PRET",
    "exit": "EXIT", "bar": "BAR",
}
_PASCAL = {
    "sp": "FADD FADD32I FCHK FFMA32I FFMA FMNMX FMUL FMUL32I FSEL FSET FSETP FSWZADD RRO FCMP "
          "HADD2 HFMA2 HMUL2 HSET2 HSETP2",
    "sfu": "MUFU", "dp": "DADD DFMA DMUL DSETP DMNMX DSET",
    "int": "BMSK BREV FLO IABS IADD IADD3 IADD32I IDP IDP4A IMAD IMMA IMNMX IMUL IMUL32I ISCADD "
           "ISCADD32I ISETP ISET LEA LOP LOP3 LOP32I POPC SHF SHR VABSDIFF VABSDIFF4 VADD BFE BFI "
           "ICMP IMADSP SHL XMAD VMNMX",
    "alu": "F2F F2I I2F I2I I2IP FRND MOV MOV32I PRMT SEL SGXT SHFL PLOP3 PSETP P2R R2P CSET "
           "CSETP PSET LDC MATCH QSPC CCTL CCTLL ERRBAR CCTLT B2R CS2R CSMTEST DEPBAR "
           "GETLMEMBASE LEPC NOP PMTRIG R2B S2R SETCTAID SETLMEMBASE VOTE VOTE_VTG",
    "tex": "TEX TLD TLD4 TMML TXD TXQ TEXS TLD4S TLDS",
    "load": "LD LDG LDL LDS", "store": "ST STG STL STS ATOM ATOMS ATOMG RED",
    "membar": "MEMBAR",
    "bra": "BMOV BPT BRA BREAK BRX BSSY BSYNC JMP SSY SYNC JMX KILL NANOSLEEP RPCMOV WARPSYNC "
           "YIELD CALL CAL JCAL PRET BRK PBK CONT PCNT PEXIT RET RTT",
    "exit": "EXIT", "bar": "BAR",
}
_VOLTA = {
    "sp": "FADD FADD32I FCHK FFMA32I FFMA FMNMX FMUL FMUL32I FSEL FSET FSETP FSWZADD HADD2 "
          "HADD2_32I HFMA2 HFMA2_32I HMUL2 HMUL2_32I HSET2 HSETP2",
    "sfu": "MUFU", "tensor": "HMMA", "dp": "DADD DFMA DMUL DSETP",
    "int": "BMSK BREV FLO IABS IADD IADD3 IADD32I IDP IDP4A IMAD IMMA IMNMX IMUL IMUL32I ISCADD "
           "ISCADD32I ISETP LEA LOP LOP3 LOP32I POPC SHF SHR VABSDIFF VABSDIFF4",
    "alu": "F2F F2I I2F I2I I2IP FRND MOV MOV32I PRMT SEL SGXT SHFL PLOP3 PSETP P2R R2P LDC "
           "MATCH QSPC CCTL CCTLL ERRBAR CCTLT B2R CS2R CSMTEST DEPBAR GETLMEMBASE LEPC NOP "
           "PMTRIG R2B S2R SETCTAID SETLMEMBASE VOTE VOTE_VTG",
    "tex": "TEX TLD TLD4 TMML TXD TXQ",
    "load": "LD LDG LDL LDS", "store": "ST STG STL STS ATOM ATOMS ATOMG RED",
    "membar": "MEMBAR",
    "bra": "BMOV BPT BRA BREAK BRX BSSY BSYNC CALL JMP JMX KILL NANOSLEEP RET RPCMOV RTT "
           "WARPSYNC YIELD",
    "exit": "EXIT", "bar": "BAR",
}
_TURING = dict(
    _VOLTA,
    tensor="HMMA BMMA IMMA",
    int=_VOLTA["int"].replace(" IMMA", "") + " SHL",
    alu=_VOLTA["alu"] + " F2FP MOVM SUATOM SULD SURED SUST",
    load="LD LDG LDL LDS LDSM",
    udp="R2UR S2UR UBMSK UBREV UCLEA UFLO UIADD3 UIMAD UISETP ULDC ULEA ULOP ULOP3 ULOP32I UMOV "
        "UP2UR UPLOP3 UPOPC UPRMT UPSETP UR2UP USEL USGXT USHF USHL USHR VOTEU",
    bra=_VOLTA["bra"].replace(" KILL", "") + " BRXU JMXU KILL",
)
_AMPERE = dict(
    _TURING,
    sp=_TURING["sp"] + " HMNMX2", tensor="HMMA DMMA BMMA IMMA",
    alu=_TURING["alu"] + " I2FP F2IP LDGDEPBAR SUQUERY",
    load="LD LDG LDL LDS LDSM LDGSTS", udp=_TURING["udp"] + " REDUX UF2FP",
)
# sm_90 additions (NVIDIA CUDA binary utilities, Hopper instruction set): pipe → opcodes
_HOPPER = {
    "tensor": "HGMMA IGMMA BGMMA QGMMA",
    "alu": "ACQBULK CGAERRBAR ELECT ENDCOLLECTIVE FENCE PREEXIT SYNCS WARPGROUP WARPGROUPSET "
           "LEPC",
    "udp": "UCGABAR_ARV UCGABAR_GET UCGABAR_SET UCGABAR_WAIT USETMAXREG ULEPC UVIRTCOUNT",
    "tma": "UBLKCP UBLKPF UBLKRED UTMACCTL UTMACMDFLUSH UTMALDG UTMAPF UTMAREDG UTMASTG",
    "load": "LDGMC", "store": "STSM STAS REDAS REDG",
}

_MEMORY = {"LD": Op.LDG, "LDG": Op.LDG, "LDL": Op.LDG, "LDGSTS": Op.LDG, "LDGMC": Op.LDG,
           "LDS": Op.LDS, "LDSM": Op.LDS, "LDSLK": Op.LDS, "ST": Op.STG, "STG": Op.STG,
           "STL": Op.STG, "STS": Op.STS, "STSCUL": Op.STS, "STSM": Op.STS, "STAS": Op.STS,
           "ATOM": Op.ATOM, "ATOMG": Op.ATOM, "RED": Op.ATOM, "REDG": Op.ATOM, "ATOMS": Op.LDS,
           "REDAS": Op.LDS}
_OF_PIPE = {"sp": Op.ALU, "int": Op.ALU, "alu": Op.ALU, "udp": Op.ALU, "tex": Op.ALU,
            "tensor": Op.ALU, "tma": Op.ALU, "sfu": Op.SFU, "dp": Op.FP64, "bra": Op.BRA,
            "membar": Op.MEMBAR, "bar": Op.BAR, "exit": Op.EXIT}
_NO_UNIT_PIPES = ("tex", "tensor", "tma")


def _merge(base: dict[str, str], extra: dict[str, str]) -> dict[str, str]:
    return {p: " ".join(filter(None, (base.get(p, ""), extra.get(p, ""))))
            for p in {**base, **extra}}


_PIPES: dict[str, dict[str, str]] = {
    "kepler": _KEPLER, "maxwell": _PASCAL, "pascal": _PASCAL, "volta": _VOLTA,
    "turing": _TURING, "ampere": _AMPERE, "hopper": _merge(_AMPERE, _HOPPER)}
TABLE_FAMILIES = tuple(_PIPES)
# the families the trace writer emits (and ``gpusched workloads --export --arch`` offers)
FAMILIES = ("pascal", "volta", "turing", "ampere")

# SASS binary version (the trace's ``-binary version``, sm_XY as XY) → family
FAMILY_OF_VERSION = {35: "kepler", 37: "kepler", 50: "maxwell", 52: "maxwell", 53: "maxwell",
                     60: "pascal", 61: "pascal", 62: "pascal", 70: "volta", 72: "volta",
                     75: "turing", 80: "ampere", 86: "ampere", 87: "ampere", 89: "ampere",
                     90: "hopper"}
# the versions Accel-Sim@73f9fac6 itself runs (trace_driven.cc): others exit there
ACCELSIM_VERSIONS = frozenset({35, 60, 61, 70, 75, 80, 86})
# the family whose binaries each preset's GPU runs (presets not listed have no such family)
FAMILY_OF_PRESET = {"gp102": "pascal", "titanx": "pascal", "qv100": "volta"}
# the binary version the writer puts in traces of each family
VERSION_OF_FAMILY = {"pascal": 61, "volta": 70, "turing": 75, "ampere": 86}


def _table(family: str) -> tuple[dict[str, Op], dict[str, str]]:
    ops: dict[str, Op] = {}
    pipes: dict[str, str] = {}
    for pipe, names in _PIPES[family].items():
        for name in names.split():
            pipes[name] = pipe
            ops[name] = _MEMORY.get(name, Op.ALU) if pipe in ("load", "store") else _OF_PIPE[pipe]
    return ops, pipes


_BUILT = {f: _table(f) for f in TABLE_FAMILIES}
SASS_TABLES: dict[str, dict[str, Op]] = {f: t[0] for f, t in _BUILT.items()}
# family → opcode → Accel-Sim's pipe name (sp, int, alu, sfu, dp, bra, load, …)
PIPE_OF: dict[str, dict[str, str]] = {f: t[1] for f, t in _BUILT.items()}
# every opcode of any family (traces without a binary version are checked against this)
SASS_TO_OP: dict[str, Op] = {k: v for f in TABLE_FAMILIES for k, v in SASS_TABLES[f].items()}
# texture, tensor-core and TMA opcodes: real SASS, but no such unit here (they run as ALU);
# load/store opcodes that are not plain memory accesses (Kepler surface ops) run as ALU too
NO_UNIT = frozenset(n for f in TABLE_FAMILIES for n, p in PIPE_OF[f].items()
                    if p in _NO_UNIT_PIPES or (p in ("load", "store") and n not in _MEMORY))

# op class → the opcode the trace writer emits (a real opcode in all four writer families).
# Op.DIV has no SASS opcode (a divide is a MUFU.RCP-based sequence): it is written as MUFU.RCP
# and so reads back as SFU; Op.NOP is written as NOP, which Accel-Sim (and so the reader) runs
# on the ALU.
OP_TO_SASS: dict[Op, str] = {
    Op.ALU: "FFMA", Op.SFU: "MUFU.EX2", Op.FP64: "DFMA", Op.DIV: "MUFU.RCP", Op.LDG: "LDG.E",
    Op.STG: "STG.E", Op.LDS: "LDS", Op.STS: "STS", Op.ATOM: "ATOMG.E.ADD", Op.BRA: "BRA",
    Op.BAR: "BAR.SYNC", Op.MEMBAR: "MEMBAR.GL", Op.EXIT: "EXIT", Op.NOP: "NOP",
}


def base_opcode(opcode: str) -> str:
    return opcode.split(".", 1)[0].upper()


# loads and stores of a thread's local memory: the SM places their addresses (sim.memory.local_map)
LOCAL_OPCODES = frozenset({"LDL", "STL"})


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
