#!/bin/bash
# ppcg-py on each Pluto example: C target built and run against gcc's build of the original; CUDA compiled
# usage: PLUTO=<checkout of bondhugula/pluto> OUT=<folder> [PPCG=<ppcg-py>] sh check.sh > check.txt
# (a first line of the stdout that is a timing differs; compare.sh compares without timings)
cd "$PLUTO"
for f in $(find examples -name '*.c' | sort); do
  d=$(dirname $f); b=$(basename $f .c); o=$OUT/$d; mkdir -p $o
  s=$(date +%s.%N)
  timeout 300 ${PPCG:-ppcg-py} --target=c --openmp --tile -I $d $f -o $o/$b.ppcg.c > $o/$b.c.log 2>&1; rc=$?
  e=$(date +%s.%N)
  timeout 300 ${PPCG:-ppcg-py} -I $d $f -o $o/$b.cu > $o/$b.cu.log 2>&1; rcu=$?
  e2=$(date +%s.%N)
  res="c:rc=$rc $(printf %.1f $(echo "$e - $s" | bc))s cuda:rc=$rcu $(printf %.1f $(echo "$e2 - $e" | bc))s"
  if [ $rc = 0 ]; then
    gcc -O2 -fopenmp -DTEST -DVERIFY -DHAS_DECLS_NOT -I $d $f -o $o/$b.orig -lm > $o/$b.gcc.log 2>&1 || res="$res orig-build-fail"
    gcc -O2 -fopenmp -DTEST -DVERIFY -DHAS_DECLS_NOT -I $d $o/$b.ppcg.c -o $o/$b.new -lm >> $o/$b.gcc.log 2>&1 || res="$res new-build-FAIL"
    if [ -x $o/$b.orig ] && [ -x $o/$b.new ]; then
      (cd $o && touch .test && timeout 120 ./$b.orig > $b.orig.out 2>$b.orig.err; OMP_NUM_THREADS=2 timeout 120 ./$b.new > $b.new.out 2>$b.new.err)
      if cmp -s $o/$b.orig.out $o/$b.new.out; then res="$res same-output($(wc -c < $o/$b.orig.out)B)"; else res="$res OUTPUT-DIFFERS"; fi
    fi
  else
    res="$res $(grep -m1 -E 'error' $o/$b.c.log | cut -c1-150)"
  fi
  echo "$f $res"
done
