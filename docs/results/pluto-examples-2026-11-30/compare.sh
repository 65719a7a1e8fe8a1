#!/bin/bash
# compare each example's stdout+stderr, lines that are timings dropped
# usage: OUT=<the folder check.sh wrote> sh compare.sh
cd "$OUT"
for o in $(find . -name '*.orig.out' | sort); do
  b=${o%.orig.out}
  strip() { cat $1.out $1.err 2>/dev/null | grep -v -E '^ *[0-9.]+ *s$|[Tt]ime|MFLOPS|GFLOPS|^[0-9.]+$' ; }
  n1=$(strip $b.orig | wc -c)
  if cmp -s <(strip $b.orig) <(strip $b.new); then echo "$b same ($n1 bytes)"; else echo "$b DIFFERS ($n1 bytes) $(cmp <(strip $b.orig) <(strip $b.new) 2>&1 | head -1)"; fi
done
