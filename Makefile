# ppcg-py: set-up, demo, tests. Everything installs into .venv (created on first use).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
JOBS   ?= 2

.PHONY: install demo test test-all clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

install: $(VENV)/.installed

# Compile the bundled example to CUDA, then check the generated code against gcc:
# nvcc must accept it and the CPU emulation of CUDA must compute the same numbers.
demo: install
	mkdir -p out/demo
	$(VENV)/bin/ppcg-py --report --output-dir out/demo examples/matmul.c
	$(PY) -m ppcg_py.verify --keep out/demo/verify examples/matmul.c

test: install
	$(PY) -m pytest -q -n $(JOBS)

test-all: install
	$(PY) -m pytest -q -n $(JOBS) -m ''

clean:
	rm -rf out .pytest_cache
