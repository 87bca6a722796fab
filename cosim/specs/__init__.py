"""One module per block; each defines ``spec() -> gpusched.blocks.BlockSpec``.

The registry in ``gpusched.blocks`` discovers these modules by name, so a new block is a new
file here (plus its ``hdl/``, ``sim/blocks/`` and stimulus modules), with no shared file to edit.
"""
