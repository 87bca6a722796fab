"""Synthesizable Amaranth blocks, one module per block; each has a twin in ``sim.blocks``."""
