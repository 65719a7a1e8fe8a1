#!/bin/bash
cd /tmp/rows2d
P=/work/main/polybench; U=$P/utilities; K=$P/stencils/jacobi-2d
for nt in 1300:500 2048:200 3000:94 4096:50 6000:32; do
  n=${nt%:*}; t=${nt#*:}
  D="-DN=$n -DTSTEPS=$t -DPOLYBENCH_TIME"
  (cd /tmp/wr && WHOLE_ROWS=1 /work/main/.venv/bin/python -m ppcg_py --target=c --openmp --tile -I $U $D $K/jacobi-2d.c -o /tmp/rows2d/whole_$n.c)
  gcc -O3 -march=native -fopenmp -I $U -I $K $D whole_$n.c $U/polybench.c -o whole_$n -lm
done
