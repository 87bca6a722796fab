"""PTX instruction → the SASS-style opcode the trace carries (per architecture family), and
which PTX instructions cost no SASS instruction at all.

The names are real SASS opcodes of the family (NVIDIA's CUDA binary utilities reference), so
Accel-Sim and the timing model put each instruction on the unit its SASS counterpart uses:
integer and fp32 arithmetic, moves and conversions on the ALU, MUFU (rcp, sqrt, sin, …, and
divisions: one MUFU.RCP instead of SASS's multi-instruction sequence) on the SFU, D* on FP64,
loads and stores by state space. Elided (no instruction in the trace, as ptxas folds them into
operands): loads of kernel parameters (constant-bank operands), ``cvta`` to/from global
(identity), moves of %ntid/%nctaid and of a variable's address (constant operands).
"""

from __future__ import annotations

from .syntax import Instr, Reg, Sym
from .values import type_of

FAMILIES = ("pascal", "volta", "turing", "ampere")
CONSTANT_SPECIALS = ("%ntid", "%nctaid", "%nsmid", "%nwarpid", "%gridid", "%dynamic_smem_size",
                     "%total_smem_size")
SPECIALS = {f"%{r}.{d}" for r in ("tid", "ntid", "ctaid", "nctaid") for d in "xyz"} | {
    "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%gridid", "%clock", "%clock64",
    "%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge", "%lanemask_gt",
    "%dynamic_smem_size", "%total_smem_size", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi"}
_MUFU = {"rcp": "RCP", "sqrt": "SQRT", "rsqrt": "RSQ", "sin": "SIN", "cos": "COS", "ex2": "EX2",
         "lg2": "LG2", "tanh": "TANH"}
_WIDTH = {1: ".U8", 2: ".U16", 8: ".64", 16: ".128"}


def elided(ins: Instr, kernel_params: set[str]) -> bool:
    """True when ptxas would not emit an instruction for ``ins``."""
    op = ins.opcode
    if op == "ld" and "param" in ins.mods:
        base = ins.operands[1].base if hasattr(ins.operands[1], "base") else None
        return isinstance(base, Sym) and base.name in kernel_params
    if op == "cvta" and "global" in ins.mods:
        return True
    if op == "mov" and len(ins.operands) == 2:
        src = ins.operands[1]
        if isinstance(src, Sym):
            return True
        if isinstance(src, Reg) and src.name.startswith(CONSTANT_SPECIALS):
            return True
    return op in ("prefetch", "prefetchu")


def _float_prefix(t: str | None) -> str:
    return {"f64": "D", "f16": "H", "f16x2": "H"}.get(t or "", "F")


def opcode(ins: Instr, family: str, width: int = 0, space: str = "") -> str:
    """The SASS-style opcode for ``ins`` (``width``: bytes per lane of a memory access,
    ``space``: its state space)."""
    op, mods = ins.opcode, set(ins.mods)
    t = type_of(ins.mods)
    fl = t in ("f16", "f16x2", "f32", "f64")
    pascal = family == "pascal"
    suffix = _WIDTH.get(width, "")
    if op in ("ld", "ldu"):
        if space == "shared":
            return "LDS" + suffix
        if space in ("local", "param"):
            return "LDL" + suffix
        if space == "const":
            return "LDC" + suffix
        if space == "global":
            return "LDG.E" + suffix + (".CONSTANT" if "nc" in mods else "")
        return "LD.E" + suffix
    if op == "st":
        return {"shared": "STS", "local": "STL", "param": "STL", "global": "STG.E"}.get(space, "ST.E") + suffix
    if op in ("atom", "red"):
        what = next((m.upper() for m in ("add", "min", "max", "inc", "dec", "and", "or", "xor",
                                         "exch", "cas") if m in mods), "ADD")
        if space == "shared":
            return "ATOMS." + what
        if op == "red":
            return "RED.E." + what
        return ("ATOM.E." if pascal else "ATOMG.E.") + what
    if op in ("add", "sub", "addc", "subc"):
        if fl:
            return _float_prefix(t) + "ADD" + ("2" if t in ("f16", "f16x2") else "")
        return "IADD" if pascal else "IADD3"
    if op in ("mul", "mul24"):
        if fl:
            return _float_prefix(t) + "MUL" + ("2" if t in ("f16", "f16x2") else "")
        return "XMAD" if pascal else ("IMAD.WIDE" if "wide" in mods else "IMAD")
    if op in ("mad", "fma", "mad24", "madc"):
        if fl:
            return _float_prefix(t) + "FMA" + ("2" if t in ("f16", "f16x2") else "")
        return "XMAD" if pascal else ("IMAD.WIDE" if "wide" in mods else "IMAD")
    if op in ("div", "rem"):
        return "MUFU.RCP64H" if t == "f64" else "MUFU.RCP"
    if op in _MUFU:
        return "MUFU." + _MUFU[op] + ("64H" if t == "f64" else "")
    if op in ("abs", "neg"):
        return ("DADD" if t == "f64" else "FADD") if fl else "IABS" if op == "abs" else "IADD3"
    if op in ("min", "max"):
        if t == "f64":
            return "DMNMX" if pascal else "DSETP"
        return ("HMNMX2" if family == "ampere" else "HSETP2") if t in ("f16", "f16x2") else \
            "FMNMX" if fl else "IMNMX"
    if op in ("and", "or", "xor", "not", "cnot", "lop3"):
        if t == "pred":
            return "PSETP" if pascal else "PLOP3"
        return "LOP" if pascal else "LOP3"
    if op in ("shl", "shr"):
        return ("SHL" if op == "shl" else "SHR") if pascal else "SHF"
    if op in ("setp", "set", "testp"):
        return {"F": "FSETP", "D": "DSETP", "H": "HSETP2"}[_float_prefix(t)] if fl or op == "testp" \
            else "ISETP"
    if op in ("selp", "slct"):
        return "SEL"
    if op == "cvt":
        dt, st = type_of(ins.mods, 0) or "", type_of(ins.mods, 1) or ""
        df, sf = dt.startswith("f"), st.startswith("f")
        if df and sf:
            return "FRND" if any(r in mods for r in ("rni", "rzi", "rmi", "rpi")) else "F2F"
        return "F2I" if sf else "I2F" if df else "I2I" if not pascal else "I2I"
    if op == "mov":
        src = ins.operands[1] if len(ins.operands) > 1 else None
        return "S2R" if isinstance(src, Reg) and src.name in SPECIALS else "MOV"
    simple = {"popc": "POPC", "clz": "FLO", "bfind": "FLO", "brev": "BREV", "prmt": "PRMT",
              "shf": "SHF", "copysign": "LOP3", "sad": "IADD3", "cvta": "IADD3",
              "bfe": "BFE" if pascal else "SHF", "bfi": "BFI" if pascal else "LOP3",
              "bar": "BAR.SYNC", "barrier": "BAR.SYNC", "membar": "MEMBAR.GL", "fence": "MEMBAR.GL",
              "bra": "BRA", "call": "CALL.REL.NOINC", "exit": "EXIT", "shfl": "SHFL",
              "vote": "VOTE.ANY", "activemask": "VOTE.ANY", "match": "MATCH.ANY",
              "redux": "REDUX" if family == "ampere" else "SHFL"}
    if op == "ret":
        return "RET.REL.NODEC" if "inline" in mods else "EXIT"
    if op in ("bar", "barrier") and ("arrive" in mods):
        return "BAR.ARV"
    if op in ("bar", "barrier") and "warp" in mods:
        return "WARPSYNC"
    if op in ("membar", "fence") and "cta" in mods:
        return "MEMBAR.CTA"
    if op == "shfl":
        mode = next((m for m in ("up", "down", "bfly", "idx") if m in mods), "idx")
        return "SHFL." + mode.upper()
    if op == "vote" and "ballot" in mods:
        return "VOTE.ANY"
    return simple.get(op, "NOP")
