#!/usr/bin/env bash
# Run a command on a lent GPU machine (the `device` tool), which has nvcc, gcc and
# Python but neither islpy nor pycparser: those travel as wheels in .whl/ (see
# docs/results/README.md for how they are fetched, and for benchmarks/gpu_ways.py, which
# compiles here and needs no wheels there).  Usage:
#   benchmarks/on_device.sh python3 -m polybench --dataset LARGE --out "$OUT/large"
set -uo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH="/tmp/site:$PWD" PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
"$@"
