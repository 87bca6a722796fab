"""Tests of sim/workload: generators, catalogue, Accel-Sim traces, CLI."""
