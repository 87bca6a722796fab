"""Real GPU code for the PTX front end: ``kernels/`` (small example kernels, one per kind) and
``programs/`` (the program suite of the papers' benchmarks, docs/workloads.md). Every kernel is
written by the project in CUDA C; its PTX is committed beside it (``make ptx`` regenerates it)."""
