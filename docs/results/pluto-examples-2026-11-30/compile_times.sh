#!/bin/bash
# compile time (wall seconds) of the outliers with constant sizes, BASE then HEAD checkout, one run each
# usage: PLUTO=<checkout of bondhugula/pluto> ROOT=<this repository> WORK=<folder> sh compile_times.sh BASE_CHECKOUT HEAD_CHECKOUT
base=$1; head=$2
P="-I $ROOT/polybench/utilities -DPOLYBENCH_USE_SCALAR_LB -DLARGE_DATASET"
PB=$ROOT/polybench; PL=$PLUTO/examples
cases=(
 "deriche-constants cuda|$P -I $PB/medley/deriche $PB/medley/deriche/deriche.c"
 "deriche-constants c|--target=c --openmp --tile $P -I $PB/medley/deriche $PB/medley/deriche/deriche.c"
 "heat-3d-constants cuda|$P -I $PB/stencils/heat-3d $PB/stencils/heat-3d/heat-3d.c"
 "adi-constants c|--target=c --openmp --tile $P -I $PB/stencils/adi $PB/stencils/adi/adi.c"
 "trisolv-constants c|--target=c --openmp --tile $P -I $PB/linear-algebra/solvers/trisolv $PB/linear-algebra/solvers/trisolv/trisolv.c"
 "pluto-life c|--target=c --openmp --tile $PL/game-of-life/life.c"
 "pluto-ldc_d3q19 c|--target=c --openmp --tile $PL/lbm/ldc/d3q19/ldc_d3q19.c"
 "pluto-ldc_d3q19 cuda|$PL/lbm/ldc/d3q19/ldc_d3q19.c"
 "pluto-ldc_d3q27 c|--target=c --openmp --tile $PL/lbm/ldc/d3q27/ldc_d3q27.c"
)
for c in "${cases[@]}"; do
  name=${c%%|*}; args=${c#*|}
  for v in base head; do
    root=$base; [ $v = head ] && root=$head
    s=$(date +%s.%N)
    python -c "import sys; sys.path.insert(0,'$root'); from ppcg_py.cli import main; sys.exit(main())" $args -o $WORK/out.$v.$RANDOM.c > $WORK/log.$v 2>&1
    rc=$?
    e=$(date +%s.%N)
    echo "$name $v rc=$rc $(printf %.1f $(echo "$e - $s" | bc))"
  done
done
