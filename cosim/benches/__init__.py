"""cocotb test modules (loaded inside the HDL simulator by cocotb)."""
