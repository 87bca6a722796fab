"""Co-simulation: Amaranth → Verilog (cached), cocotb benches on Verilator/Icarus, lockstep checks."""
