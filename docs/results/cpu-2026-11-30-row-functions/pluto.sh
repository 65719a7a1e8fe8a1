#!/bin/bash
# usage: PLUTO=<checkout of bondhugula/pluto> sh pluto.sh RUNS example ... : gcc -O3 -march=native on Pluto's
# example beside this checkout's output with the row loops in place (`n`) and in functions (`f`),
# `--target=c --openmp --tile`, the examples' own sizes and timers (-DTIME), 1 and 2 threads, interleaved
runs=$1; shift
M=${PPCG_PY_ROOT:-$(cd "$(dirname "$0")/../../.." && pwd)}
for f in "$@"; do
  b=$(basename $f); src=$PLUTO/examples/$f/$b.c
  gcc -O3 -march=native -DTIME -I $(dirname $src) $src -o $b.gcc -lm
  $M/.venv/bin/ppcg-py --target=c --openmp --tile --no-row-functions -I $(dirname $src) $src -o $b.n.c
  $M/.venv/bin/ppcg-py --target=c --openmp --tile -I $(dirname $src) $src -o $b.f.c
  for v in n f; do gcc -O3 -march=native -fopenmp -DTIME -I $(dirname $src) $b.$v.c -o $b.$v -lm; done
done
for r in $(seq $runs); do for f in "$@"; do b=$(basename $f)
  for t in 1 2; do for v in gcc n f; do
    [ $v = gcc ] && [ $t = 2 ] && continue
    out=$(OMP_NUM_THREADS=$t ./$b.$v 2>&1 | tr '\t|' '\n\n' | grep -i -E "time taken|s$" | head -1)
    echo "$b $v$t $out"
  done; done
done; done
