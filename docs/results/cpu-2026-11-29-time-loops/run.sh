#!/bin/sh
# usage: run.sh BASE_CHECKOUT HEAD_CHECKOUT RUNS  (each checkout with its .venv)
# Builds each program three ways (gcc -O3 on the original; each checkout's
# `--target=c --openmp --tile` output) and runs them interleaved, one thread and two.
set -e
base=$1; head=$2; runs=$3
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
for prog in jacobi_2d_fill_sum heat_3d_fill_sum; do
  gcc -O3 -march=native -fopenmp "$here/$prog.c" -o "$work/$prog.gcc" -lm
  for side in base head; do
    eval checkout=\$$side
    "$checkout/.venv/bin/python" -c "import sys; sys.path.insert(0, '$checkout'); from ppcg_py.cli import main; sys.exit(main())" \
      --target=c --openmp --tile "$here/$prog.c" -o "$work/$prog.$side.c"
    gcc -O3 -march=native -fopenmp "$work/$prog.$side.c" -o "$work/$prog.$side" -lm
  done
  for threads in 1 2; do
    for run in $(seq "$runs"); do
      for side in gcc base head; do
        printf '%s %s threads=%s ' "$prog" "$side" "$threads"
        OMP_NUM_THREADS=$threads "$work/$prog.$side"
      done
    done
  done
done
rm -rf "$work"
