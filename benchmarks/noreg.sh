#!/bin/bash
# A "compiler" for benchmarks/cpu.py's --tool: ppcg-py --no-register-tiles on the kernel,
# then gcc on its output, so that a column differs from ppcg-py's by the register tiles:
#   python benchmarks/cpu.py --tool 'no-register-tiles=benchmarks/noreg.sh -fopenmp {cflags} {src} -o {exe} {libs}'
# (the word -fopenmp makes cpu.py run it once per thread count). PPCG_PY: the ppcg-py to run.
set -e
ppcg=${PPCG_PY:-$(cd "$(dirname "$0")/.." && pwd)/.venv/bin/ppcg-py}
flags=(); sources=(); libs=(); out=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) shift; out=$1;;
    *.c) sources+=("$1");;
    -I*|-D*) flags+=("$1");;
    -l*) libs+=("$1");;
  esac
  shift
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
built=()
for s in "${sources[@]}"; do
  case "$s" in
    */polybench.c) built+=("$s");;
    *) "$ppcg" --target=c --openmp --tile --no-register-tiles "${flags[@]}" "$s" -d "$tmp"
       built+=("$tmp/$(basename "${s%.c}").ppcg.c");;
  esac
done
gcc -O3 -march=native -fopenmp "${flags[@]}" "${built[@]}" -o "$out" "${libs[@]}"
