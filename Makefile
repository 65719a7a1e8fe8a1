# ppcg-py: set-up, demo, tests. Everything installs into .venv (created on first use).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
JOBS   ?= 2

.PHONY: polybench-check-reductions install demo test test-all clean clang opencl polybench polybench-check

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

# the bytecode ahead of time (only what changed): where PYTHONDONTWRITEBYTECODE is set (CI,
# containers), every compilation would otherwise translate ppcg-py's sources again (0.15 s each)
install: $(VENV)/.installed
	$(PY) -m compileall -q ppcg_py

# Compile the bundled example to CUDA, then check the generated code against gcc:
# nvcc must accept it and the CPU emulation of CUDA must compute the same numbers.
demo: install
	mkdir -p out/demo
	$(VENV)/bin/ppcg-py --report --output-dir out/demo examples/matmul.c
	$(PY) -m ppcg_py.verify --keep out/demo/verify examples/matmul.c

test: install opencl clang
	$(PY) -m pytest -q -n $(JOBS)

test-all: install opencl clang
	$(PY) -m pytest -q -n $(JOBS) -m ''

# Debian's clang-22, for the clang/LLVM NVPTX build (python -m polybench --build clang,
# tests/polybench/test_clang_build.py). Installed when missing and this is root with apt
# (a fresh CI machine); otherwise a note, and the clang tests skip, saying why.
clang:
	@if command -v clang++-22 >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing clang-22"; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-22 >/dev/null; } \
	  || echo "make: installing clang-22 failed: the clang build tests skip"; \
	else echo "make: no clang++-22, and installing it needs root and apt: the clang build tests skip"; fi

# An OpenCL runtime for --target=opencl's tests: Debian's PoCL runs OpenCL on the CPU.
# Installed when missing and this is root with apt (a fresh CI machine); otherwise a
# note, and the OpenCL tests skip, saying why.
OPENCL_PACKAGES := pocl-opencl-icd ocl-icd-opencl-dev
opencl:
	@if [ -f /usr/include/CL/cl.h ] && ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing $(OPENCL_PACKAGES)"; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(OPENCL_PACKAGES) >/dev/null; } \
	  || echo "make: installing $(OPENCL_PACKAGES) failed: the OpenCL tests skip"; \
	else echo "make: no OpenCL runtime, and installing $(OPENCL_PACKAGES) needs root and apt: the OpenCL tests skip"; fi

# All 30 PolyBench kernels at MINI in the CPU emulation of CUDA, forward and reverse
# thread order, against gcc (no nvcc: the emulation check); then the C target
# (--target=c --openmp --tile, gcc -fopenmp, 1, 2 and 4 threads); then OpenCL on the
# OpenCL runtime (PoCL); then the CUDA output built by nvcc for real and run on this
# machine, which has no GPU: every SCoP takes its host path (MINI and SMALL), and the
# OpenCL output with no OpenCL platform (MINI). Each run
# ends in "N passed, M failed"; the last line adds them up, and the status fails if any
# run failed.
polybench-check: install opencl
	@mkdir -p out
	@( $(PY) -m polybench --kernels all --dataset MINI --build none --repeat 1 --no-plot \
	  --jobs $(JOBS) --out out/polybench-check; echo $$? > out/polybench-check.rc ) | tee out/polybench-check.log
	@( $(PY) -m polybench --target c --ppcg-arg=--tile --kernels all --dataset MINI --repeat 1 --no-plot \
	  --jobs $(JOBS) --out out/polybench-check-c; echo $$? > out/polybench-check-c.rc ) \
	  | tee out/polybench-check-c.log
	@( $(PY) -m polybench --target c --ppcg-arg=--tile --ppcg-arg=--time-tiles=always \
	  --ppcg-arg=--tile-sizes=3,5,7,6 --kernels all --dataset SMALL --repeat 1 --no-plot \
	  --jobs $(JOBS) --out out/polybench-check-c-time; echo $$? > out/polybench-check-c-time.rc ) \
	  | tee out/polybench-check-c-time.log
	@( $(PY) -m polybench --target opencl --kernels all --dataset MINI --repeat 1 --no-plot \
	  --jobs $(JOBS) --out out/polybench-check-opencl; echo $$? > out/polybench-check-opencl.rc ) \
	  | tee out/polybench-check-opencl.log
	@for size in MINI SMALL; do \
	  if command -v nvcc >/dev/null; then \
	    ( $(PY) -m polybench --kernels all --dataset $$size --host-path --repeat 1 --no-plot --jobs $(JOBS) \
	      --out out/polybench-check-host-$$size; echo $$? > out/polybench-check-host-$$size.rc ) \
	      | tee out/polybench-check-host-$$size.log; \
	  else echo "make: no nvcc: the host-path run ($$size) is skipped"; echo 0 > out/polybench-check-host-$$size.rc; \
	    echo "0 passed, 0 failed" > out/polybench-check-host-$$size.log; fi; done
	@( $(PY) -m polybench --target opencl --host-path --kernels all --dataset MINI --repeat 1 --no-plot \
	  --jobs $(JOBS) --out out/polybench-check-opencl-host; echo $$? > out/polybench-check-opencl-host.rc ) \
	  | tee out/polybench-check-opencl-host.log
	@$(PY) -m polybench.report --sum out/polybench-check.log out/polybench-check-c.log out/polybench-check-c-time.log \
	  out/polybench-check-opencl.log out/polybench-check-host-MINI.log out/polybench-check-host-SMALL.log \
	  out/polybench-check-opencl-host.log
	@test "$$(cat out/polybench-check.rc out/polybench-check-c.rc out/polybench-check-c-time.rc \
	  out/polybench-check-opencl.rc out/polybench-check-host-MINI.rc out/polybench-check-host-SMALL.rc \
	  out/polybench-check-opencl-host.rc)" = "$$(printf '0\n0\n0\n0\n0\n0\n0')"

# The same with --reductions (floating-point sums reassociated). gramschmidt-real is left
# out: rank-deficient by design, its results depend on the rounding of every operation.
polybench-check-reductions: install opencl
	@mkdir -p out
	@( $(PY) -m polybench --ppcg-arg=--reductions --kernels all,-gramschmidt-real --dataset MINI --build none \
	  --repeat 1 --no-plot --jobs $(JOBS) --out out/polybench-check-red; echo $$? > out/polybench-check-red.rc ) \
	  | tee out/polybench-check-red.log
	@( $(PY) -m polybench --target opencl --ppcg-arg=--reductions --kernels all,-gramschmidt-real --dataset MINI \
	  --repeat 1 --no-plot --jobs $(JOBS) --out out/polybench-check-red-opencl; \
	  echo $$? > out/polybench-check-red-opencl.rc ) | tee out/polybench-check-red-opencl.log
	@$(PY) -m polybench.report --sum out/polybench-check-red.log out/polybench-check-red-opencl.log
	@test "$$(cat out/polybench-check-red.rc out/polybench-check-red-opencl.rc)" = "$$(printf '0\n0')"

# The experiment: table and speedup plot in out/polybench-DATE (the plot needs matplotlib).
# Options go in POLYBENCH_ARGS, e.g. make polybench POLYBENCH_ARGS="--dataset SMALL".
polybench: install
	$(PY) -m polybench $(POLYBENCH_ARGS)

clean:
	rm -rf out .pytest_cache

# Differential fuzzing: FUZZ_COUNT random SCoP programs (default 1000) with random options,
# each verified against gcc in the CPU emulation (nvcc every 25th); a summary at the end.
# Failures are shrunk and saved in tests/regressions/ (replayed by make test).
FUZZ_COUNT ?= 1000
FUZZ_SEED  ?= 1
.PHONY: fuzz
fuzz: install
	cd tests && $(abspath $(PY)) -m fuzz --count $(FUZZ_COUNT) --seed $(FUZZ_SEED) --jobs $(JOBS) --save
