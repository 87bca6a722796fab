"""A run point: one simulation (or other runner call) and its stable content key.

The key is what makes sweeps resumable: two points with the same inputs under the same package
version and the same code share a key, so a result already in the store is never computed twice,
and a result computed by other code is never silently reused. "The code" is the point's model
fingerprint (fingerprint.py): the modules the point executes, so adding a policy in its own file
leaves every other point's key as it was.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import gpusched

Scalar = str | int | float | bool


def workload_digest(name: str) -> str | None:
    """Content hash of a workload that lives in files (so editing it does not reuse old results):
    the ``.py`` of ``file.py:function``, a CUDA program's files (``program:``), or an Accel-Sim
    trace directory's ``kernelslist.g`` and kernel files (their hashes remembered per file
    stamp). None for catalogue names and modules (their code is in the point's model
    fingerprint)."""
    if name.startswith("program:"):              # a CUDA program: its files and the front end
        from sim.workload.program import files_digest, program_path
        try:
            return files_digest(program_path(name))
        except Exception:                        # a bad name: the grid check reports it
            return None
    mod = name.rpartition(":")[0]
    if not name.startswith("trace:") and mod.endswith(".py"):
        path = Path(mod)
        return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
    from sim.run import trace_dir_of
    trace = trace_dir_of(name)
    if trace is None or not (trace / "kernelslist.g").is_file():
        return None
    from sim.workload.trace_store import cache_root, content_digest
    h = hashlib.sha256((trace / "kernelslist.g").read_bytes())
    for f in sorted(trace.glob("*.traceg*")):
        h.update(f.name.encode() + content_digest(f, cache_root()).encode())
    return h.hexdigest()


def flatten(value: dict, prefix: str = "") -> dict:
    """Nested dicts → one level with dotted keys (``{"sm": {"count": 4}}`` → ``{"sm.count": 4}``)."""
    out = {}
    for k, v in value.items():
        if isinstance(v, dict):
            out.update(flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def canonical_json(value: object) -> str:
    """JSON with sorted keys and no whitespace: equal values give equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def override_strings(overrides: dict[str, Scalar]) -> list[str]:
    """``{"sm.warp_sched": "gto"}`` → ``["sm.warp_sched=gto"]`` (the ``--set`` form)."""
    def text(v: Scalar) -> str:
        return ("true" if v else "false") if isinstance(v, bool) else str(v)
    return [f"{k}={text(v)}" for k, v in sorted(overrides.items())]


@dataclass(frozen=True)
class Point:
    """One run: which runner ``kind``, on which preset (name or config .toml path) with which
    config ``overrides`` (dotted paths; policy choices such as ``sm.warp_sched`` live here),
    which ``workload`` and ``seed``, and extra keyword ``params`` for the runner (for the model:
    ``memory``, ``scale`` and ``simulate``'s policy keyword overrides)."""
    preset: str
    workload: str
    seed: int = 0
    overrides: dict[str, Scalar] = field(default_factory=dict)
    params: dict[str, Scalar] = field(default_factory=dict)
    kind: str = "model"

    def inputs(self) -> dict:
        """Plain JSON-ready dict of the inputs (stored with every row)."""
        return {"kind": self.kind, "preset": self.preset, "workload": self.workload,
                "seed": self.seed, "overrides": dict(sorted(self.overrides.items())),
                "params": dict(sorted(self.params.items()))}

    @classmethod
    def from_inputs(cls, data: dict) -> "Point":
        return cls(preset=data["preset"], workload=data["workload"], seed=data["seed"],
                   overrides=dict(data.get("overrides", {})), params=dict(data.get("params", {})),
                   kind=data.get("kind", "model"))

    @property
    def model(self) -> str:
        """The model fingerprint: a hash of the code this point executes (fingerprint.py)."""
        from .fingerprint import point_fingerprint
        return point_fingerprint(self)

    @property
    def key(self) -> str:
        """sha256 over the canonical inputs, the package version, the model fingerprint and,
        when the preset is a config file or the workload lives in files, their content (editing
        any of them must not reuse old results)."""
        material = {"inputs": self.inputs(), "version": gpusched.__version__,
                    "model_code": self.model}
        if self.preset.endswith(".toml") and Path(self.preset).is_file():
            material["preset_sha256"] = hashlib.sha256(Path(self.preset).read_bytes()).hexdigest()
        if (digest := workload_digest(self.workload)) is not None:
            material["workload_sha256"] = digest
        return hashlib.sha256(canonical_json(material).encode()).hexdigest()

    def __hash__(self) -> int:  # dict fields: hash the canonical inputs instead
        return hash(canonical_json(self.inputs()))

    def label(self) -> str:
        """Short human description for progress lines and error lists."""
        parts = [self.kind, self.preset, self.workload, f"seed={self.seed}"]
        parts += override_strings(self.overrides)
        parts += [f"{k}={v}" for k, v in sorted(self.params.items())]
        return " ".join(parts)
