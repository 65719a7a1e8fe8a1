#!/bin/sh
# usage: side.sh RUNS category/kernel ... : gcc -O3 on the original beside this checkout's
# `--target=c --openmp --tile` output with the row loops in place (--no-row-functions, `n`) and in
# functions of their own (`f`), LARGE, interleaved: each run is gcc, n1, f1, n2, f2 (N: threads)
runs=$1; shift
M=${PPCG_PY_ROOT:-$(cd "$(dirname "$0")/../../.." && pwd)}; PB=$M/polybench; U=$PB/utilities
for K in "$@"; do
  name=$(basename $K); SRC=$PB/$K/$name.c
  CF="-O3 -march=native -DPOLYBENCH_TIME -DLARGE_DATASET -I $U -I $PB/$K"
  gcc $CF $SRC $U/polybench.c -o $name.gcc -lm
  $M/.venv/bin/ppcg-py --target=c --openmp --tile --no-row-functions -I $U $SRC -o $name.n.c
  $M/.venv/bin/ppcg-py --target=c --openmp --tile -I $U $SRC -o $name.f.c
  for v in n f; do gcc $CF -fopenmp $name.$v.c $U/polybench.c -o $name.$v -lm; done
done
for run in $(seq $runs); do for K in "$@"; do
  name=$(basename $K)
  printf '%s gcc %s\n' $name $(./$name.gcc)
  for threads in 1 2; do for v in n f; do
    printf '%s %s%s %s\n' $name $v $threads $(OMP_NUM_THREADS=$threads ./$name.$v)
  done; done
done; done
