"""JSON that is JSON: NaN and ±Infinity (which ``json.dumps`` writes by default and strict
parsers such as ``jq`` or JavaScript reject) become ``null`` in every output gpusched writes."""

from __future__ import annotations

import json
import math


def finite(value: object) -> object:
    """``value`` with every non-finite float (at any depth) replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


def dumps(value: object, **kwargs) -> str:
    """``json.dumps`` of ``finite(value)``; refuses NaN/Infinity should any slip through."""
    return json.dumps(finite(value), allow_nan=False, **kwargs)
