#!/bin/bash
# side by side: gcc -O3 -march=native on Pluto's original, ppcg-py BASE and HEAD outputs (--target=c --openmp --tile)
# usage: PLUTO=<checkout of bondhugula/pluto> WORK=<folder> sh time.sh BASE_CHECKOUT HEAD_CHECKOUT ROUNDS > runs.txt
base=$1; head=$2; rounds=$3
mkdir -p "$WORK" && cd "$WORK"
for f in heat-1d/heat-1d heat-3d/heat-3d 3d7pt/3d7pt fdtd-1d/fdtd-1d; do
  b=$(basename $f); src=$PLUTO/examples/$f.c
  gcc -O3 -march=native -DTIME -I $(dirname $src) $src -o $b.gcc -lm
  for v in base head; do
    root=$base; [ $v = head ] && root=$head
    python -c "import sys; sys.path.insert(0,'$root'); from ppcg_py.cli import main; sys.exit(main())" --target=c --openmp --tile -I $(dirname $src) $src -o $b.$v.c 2>/dev/null
    gcc -O3 -march=native -fopenmp -DTIME -I $(dirname $src) $b.$v.c -o $b.$v -lm
  done
done
for r in $(seq $rounds); do
  for f in heat-1d heat-3d 3d7pt fdtd-1d; do
    for th in 1 2; do
      for v in gcc base head; do
        out=$(OMP_NUM_THREADS=$th ./$f.$v 2>&1 | tr '\t|' '\n\n' | grep -i -E "time taken|s$" | head -1)
        echo "$f $th $v $out"
      done
    done
  done
done
