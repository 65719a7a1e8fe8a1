#!/usr/bin/env bash
# check_sources.sh: sanity checks of ppcg-py's own PolyBench/C kernels.
#
# For every kernel present under polybench/ (or only those named as
# arguments, e.g. `check_sources.sh gemm lu`):
#   - compiles as C   (gcc -std=gnu99 -O1 -Wall -Werror) and as
#     C++ (g++ -x c++ -std=gnu++17 -O1 -Wall -Werror), default dataset;
#   - compiles as C with -DPOLYBENCH_USE_C99_PROTO, and as C and C++ with
#     -DPOLYBENCH_USE_SCALAR_LB;
#   - builds and runs at MINI and SMALL with -DPOLYBENCH_DUMP_ARRAYS, with
#     and without -DPOLYBENCH_DUMP_FULL_PRECISION, as C and as C++: the dump
#     must be well formed, hold only finite numbers, and be the same for C,
#     C++ and -DPOLYBENCH_USE_SCALAR_LB;
#   - -DPOLYBENCH_TIME prints one number.
# (#pragma scop is unknown to gcc: -Wno-unknown-pragmas.)
# Exit status 0 when every kernel passes. JOBS=N sets the parallelism.
set -u

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
UTIL="$HERE/utilities"
CC="${CC:-gcc}"
CXX="${CXX:-g++}"
CFLAGS_C="-std=gnu99 -O1 -Wall -Wno-unknown-pragmas -Werror"
CFLAGS_CXX="-x c++ -std=gnu++17 -O1 -Wall -Wno-unknown-pragmas -Werror"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/pbcheck.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

fail=0
npass=0
nfail=0

# polybench.c itself, as C and as C++.
$CC $CFLAGS_C -Wextra -I"$UTIL" -c "$UTIL/polybench.c" -o "$WORK/pb_c.o" 2>"$WORK/pb.log" \
  || { echo "FAIL polybench.c (C):"; cat "$WORK/pb.log"; exit 1; }
$CXX $CFLAGS_CXX -Wextra -I"$UTIL" -c "$UTIL/polybench.c" -o "$WORK/pb_cxx.o" 2>"$WORK/pb.log" \
  || { echo "FAIL polybench.c (C++):"; cat "$WORK/pb.log"; exit 1; }
echo "OK   polybench.c (C and C++)"

# Checks that a dump file is well formed and finite; prints a reason on error.
check_dump() {
  python3 - "$1" <<'PY'
import math, re, sys
text = open(sys.argv[1]).read()
lines = text.split("\n")
if not text.startswith("==BEGIN DUMP_ARRAYS==\n") or "==END   DUMP_ARRAYS==" not in text:
    print("missing BEGIN/END DUMP_ARRAYS"); sys.exit(1)
body = text.split("==BEGIN DUMP_ARRAYS==\n", 1)[1].split("==END   DUMP_ARRAYS==", 1)[0]
blocks = re.findall(r"begin dump: (\S+)\n(.*?)\nend   dump: (\S+)\n", body, re.S)
if not blocks:
    print("no begin/end dump blocks"); sys.exit(1)
for name, vals, end in blocks:
    if name != end:
        print(f"begin {name} / end {end}"); sys.exit(1)
    for line in vals.split("\n"):
        if len(line.split()) > 20:
            print(f"{name}: more than 20 values on a line"); sys.exit(1)
    toks = vals.split()
    if not toks:
        print(f"{name}: empty"); sys.exit(1)
    for t in toks:
        try:
            v = float(t)
        except ValueError:
            print(f"{name}: bad value {t!r}"); sys.exit(1)
        if not math.isfinite(v):
            print(f"{name}: non-finite value {t}"); sys.exit(1)
print(" ".join(f"{n}:{len(v.split())}" for n, v, _ in blocks))
PY
}

check_kernel() {
  local src="$1"
  local dir name base
  dir="$(dirname "$src")"
  name="$(basename "$src" .c)"
  base="$WORK/$name"
  local inc=(-I"$UTIL" -I"$dir")
  local log="$base.log"
  local why=""

  # Compile-only checks (default dataset, LARGE).
  $CC $CFLAGS_C "${inc[@]}" -c "$src" -o "$base.o" 2>"$log" || { why="C compile"; }
  [ -z "$why" ] && { $CXX $CFLAGS_CXX "${inc[@]}" -c "$src" -o "$base.o" 2>"$log" || why="C++ compile"; }
  [ -z "$why" ] && { $CC $CFLAGS_C -DPOLYBENCH_USE_C99_PROTO "${inc[@]}" -c "$src" -o "$base.o" 2>"$log" || why="C compile -DPOLYBENCH_USE_C99_PROTO"; }
  [ -z "$why" ] && { $CC $CFLAGS_C -DPOLYBENCH_USE_SCALAR_LB "${inc[@]}" -c "$src" -o "$base.o" 2>"$log" || why="C compile -DPOLYBENCH_USE_SCALAR_LB"; }
  [ -z "$why" ] && { $CXX $CFLAGS_CXX -DPOLYBENCH_USE_SCALAR_LB "${inc[@]}" -c "$src" -o "$base.o" 2>"$log" || why="C++ compile -DPOLYBENCH_USE_SCALAR_LB"; }
  [ -z "$why" ] && { $CC $CFLAGS_C -DMINI_DATASET -DPOLYBENCH_TIME "${inc[@]}" "$src" "$WORK/pb_c.o" -lm -o "$base.time" 2>"$log" || why="C build -DPOLYBENCH_TIME"; }
  if [ -z "$why" ]; then
    "$base.time" >"$base.tout" 2>"$log" || why="run -DPOLYBENCH_TIME"
    [ -z "$why" ] && { grep -Eq '^[0-9]+\.[0-9]{6}$' "$base.tout" && [ "$(wc -l <"$base.tout")" -eq 1 ] || why="-DPOLYBENCH_TIME output: $(head -c 80 "$base.tout")"; }
  fi

  local summary=""
  local ds prec variant
  for ds in MINI SMALL; do
    for prec in "" "-DPOLYBENCH_DUMP_FULL_PRECISION"; do
      [ -n "$why" ] && break
      local tag="${ds}${prec:+_full}"
      for variant in c cxx c_lb; do
        local exe="$base.$tag.$variant"
        local flags=(-D${ds}_DATASET -DPOLYBENCH_DUMP_ARRAYS $prec "${inc[@]}")
        case $variant in
          c)    $CC $CFLAGS_C "${flags[@]}" "$src" "$WORK/pb_c.o" -lm -o "$exe" 2>"$log" ;;
          cxx)  $CXX $CFLAGS_CXX "${flags[@]}" "$src" -x none "$WORK/pb_cxx.o" -lm -o "$exe" 2>"$log" ;;
          c_lb) $CC $CFLAGS_C -DPOLYBENCH_USE_SCALAR_LB "${flags[@]}" "$src" "$WORK/pb_c.o" -lm -o "$exe" 2>"$log" ;;
        esac || { why="build $tag ($variant)"; break; }
        "$exe" >"$exe.out" 2>"$exe.err" || { why="run $tag ($variant) exit $?"; break; }
        if [ -s "$exe.out" ]; then why="run $tag ($variant): unexpected stdout"; break; fi
      done
      [ -n "$why" ] && break
      local res
      res="$(check_dump "$base.$tag.c.err")" || { why="dump $tag: $res"; break; }
      cmp -s "$base.$tag.c.err" "$base.$tag.cxx.err" || { why="dump $tag differs between C and C++"; break; }
      cmp -s "$base.$tag.c.err" "$base.$tag.c_lb.err" || { why="dump $tag differs with -DPOLYBENCH_USE_SCALAR_LB"; break; }
      [ -z "$prec" ] && summary="$summary $ds[$res]"
    done
  done

  if [ -n "$why" ]; then
    echo "FAIL $name: $why"
    [ -s "$log" ] && sed 's/^/     | /' "$log" | head -20
    return 1
  fi
  echo "OK   $name:$summary"
  return 0
}

if [ $# -gt 0 ]; then
  srcs=()
  for k in "$@"; do
    f="$(find "$HERE" -path "$UTIL" -prune -o -name "$k.c" -print | head -1)"
    if [ -z "$f" ]; then echo "FAIL $k: no such kernel"; nfail=$((nfail + 1)); fail=1; continue; fi
    srcs+=("$f")
  done
else
  mapfile -t srcs < <(find "$HERE" -path "$UTIL" -prune -o -name '*.c' -print | sort)
fi

# Run the kernels JOBS at a time (default: number of CPUs), report in order.
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 1)}"
running=0
for src in "${srcs[@]}"; do
  name="$(basename "$src" .c)"
  ( if check_kernel "$src" >"$WORK/$name.result" 2>&1; then echo pass >"$WORK/$name.status"; else echo fail >"$WORK/$name.status"; fi ) &
  running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then wait -n; running=$((running - 1)); fi
done
wait
for src in "${srcs[@]}"; do
  name="$(basename "$src" .c)"
  cat "$WORK/$name.result"
  if [ "$(cat "$WORK/$name.status" 2>/dev/null)" = pass ]; then npass=$((npass + 1)); else nfail=$((nfail + 1)); fail=1; fi
done

echo "kernels: $npass passed, $nfail failed"
exit $fail
