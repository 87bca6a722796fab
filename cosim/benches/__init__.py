"""cocotb test modules (loaded inside the HDL simulator by cocotb)."""

import importlib


def load_ref(ref: str):
    """Import a "module:attr" reference (scenarios, replacement twins)."""
    mod, attr = ref.split(":")
    return getattr(importlib.import_module(mod), attr)
