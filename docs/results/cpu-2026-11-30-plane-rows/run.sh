#!/bin/bash
# median of R interleaved rounds; prints N threads gcc def whole
cd /tmp/rows2d; R=${R:-5}
for n in 1300 2048 3000 4096 6000; do
  for th in 1 2; do
    g=(); d=(); w=()
    for r in $(seq $R); do
      [ $th = 1 ] && g+=($(./gcc_$n)) || g+=(0)
      d+=($(OMP_NUM_THREADS=$th ./def_$n)); w+=($(OMP_NUM_THREADS=$th ./whole_$n))
    done
    med() { printf "%s\n" "$@" | sort -g | sed -n "$(( (R+1)/2 ))p"; }
    echo "$n $th gcc $(med ${g[@]}) def $(med ${d[@]}) whole $(med ${w[@]})"
  done
done
