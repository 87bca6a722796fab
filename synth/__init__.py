"""Yosys area flow: cells, NAND2 gate equivalents, µm² (sky130hd), flops and logic depth."""
