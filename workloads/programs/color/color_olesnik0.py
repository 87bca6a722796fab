"""color on the olesnik0-like graph, as a host program of its own for the command line:
``gpusched run --program workloads/programs/color/color_olesnik0.py --preset P``."""

from workloads.programs.color.color import main as _main


def main(ctx, seed: int = 0, scale: float = 1.0):
    return _main(ctx, seed, scale, graph="olesnik0")
