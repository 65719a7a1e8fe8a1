#!/bin/bash
# jacobi-2d at N x N for T steps: ppcg-py's default sizes vs the same with whole rows
cd /tmp/rows2d
P=/work/main/polybench; U=$P/utilities; K=$P/stencils/jacobi-2d
for nt in 1300:500 2048:200 3000:94 4096:50 6000:32; do
  n=${nt%:*}; t=${nt#*:}
  D="-DN=$n -DTSTEPS=$t -DPOLYBENCH_TIME"
  /work/main/.venv/bin/ppcg-py --target=c --openmp --tile --dump-sizes -I $U $D $P/stencils/jacobi-2d/jacobi-2d.c -o def_$n.c > sizes_$n.txt 2>&1
  sz=$(grep -o 'tile\[[0-9, ]*\]' sizes_$n.txt | head -1 | tr -d 'tile[]' )
  a=$(echo $sz | cut -d, -f1); b=$(echo $sz | cut -d, -f2 | tr -d ' ')
  /work/main/.venv/bin/ppcg-py --target=c --openmp --tile --sizes "{ kernel[0] -> tile[$a,$b,$((n+64))] }" -I $U $D $P/stencils/jacobi-2d/jacobi-2d.c -o whole_$n.c 2>/dev/null
  for v in def whole; do gcc -O3 -march=native -fopenmp -I $U -I $K $D ${v}_$n.c $U/polybench.c -o ${v}_$n -lm; done
  gcc -O3 -march=native -I $U -I $K $D $P/stencils/jacobi-2d/jacobi-2d.c $U/polybench.c -o gcc_$n -lm
  echo "$n T=$t sizes: $sz"
done
