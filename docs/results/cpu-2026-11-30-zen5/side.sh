#!/bin/sh
# usage: side.sh BASE_ROOT HEAD_ROOT RUNS category/kernel ... : gcc -O3 on the original and each root's
# `--target=c --openmp --tile` output, LARGE, run in turn with 1 and 2 threads
base=$1; head=$2; runs=$3; shift 3
M=${PPCG_PY_ROOT:-$(cd "$(dirname "$0")/../../.." && pwd)}; PB=$M/polybench; U=$PB/utilities
for K in "$@"; do
  name=$(basename $K); SRC=$PB/$K/$name.c
  CF="-O3 -march=native -DPOLYBENCH_TIME -DLARGE_DATASET -I $U -I $PB/$K"
  gcc $CF $SRC $U/polybench.c -o $name.gcc -lm
  for side in base head; do
    eval root=\$$side
    $M/.venv/bin/python -c "import sys; sys.path.insert(0, '$root'); from ppcg_py.cli import main; sys.exit(main())" \
      --target=c --openmp --tile -I $U $SRC -o $name.$side.c
    gcc $CF -fopenmp $name.$side.c $U/polybench.c -o $name.$side -lm
  done
  for threads in 1 2; do for run in $(seq $runs); do for side in gcc base head; do
    printf '%s %s %s %s\n' $name $side $threads $(OMP_NUM_THREADS=$threads ./$name.$side)
  done; done; done
done
