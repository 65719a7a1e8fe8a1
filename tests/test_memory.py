"""Memory hierarchy: shared-memory tiles, register tiles, barriers and minimal transfers."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import islpy as isl
import pytest

from ppcg_py.cli import main
from ppcg_py.isl_context import new_context
from ppcg_py.memory.box import fixed_box
from ppcg_py.verify.harness import VerifyConfig, run_ppcg, verify
from ppcg_py.verify.nvcc import nvcc_available, nvcc_resources

from polybench_cases import POLYBENCH, kernel_config, kernel_source

KERNELS = ["gemm", "2mm", "atax", "bicg", "mvt", "jacobi-2d", "lu", "trisolv",
           "syrk", "syr2k", "doitgen", "covariance", "fdtd-2d", "jacobi-1d"]
MODES = {
    "promote": (),
    "no-shared": ("--no-shared-memory",),
    "no-private": ("--no-private-memory",),
    "global-only": ("--no-shared-memory", "--no-private-memory"),
}
SIZES = {
    # tiles smaller than blocks in one dimension (block clamped), larger in the other
    "tile-vs-block": ("--sizes", "{ kernel[i] -> tile[8,64,5]; kernel[i] -> block[16,32]; kernel[i] -> grid[3,2] }"),
    # odd tiles that divide none of the array sizes, more shared memory allowed
    "odd-tiles": ("--tile-sizes", "7,13,3", "--max-shared-memory", "16384"),
}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("kernel", KERNELS)
def test_promotion_modes_verify(kernel, mode, tmp_path):
    report = verify(kernel_config(kernel, ppcg_args=MODES[mode]), tmp_path)
    assert report.ok, report.summary()


@pytest.mark.parametrize("sizes", list(SIZES))
@pytest.mark.parametrize("kernel", KERNELS)
def test_promotion_with_sizes_verify(kernel, sizes, tmp_path):
    report = verify(kernel_config(kernel, ppcg_args=SIZES[sizes], use_nvcc=False), tmp_path)
    assert report.ok, report.summary()


def _compile(tmp_path, kernel: str, *args: str) -> tuple[str, str]:
    """The report and kernel file; with PPCG's sizes unless `args` give some (the
    placements tested are those of PPCG's tiles)."""
    src = kernel_source(kernel)
    if not any(a in ("--sizes", "--tile-sizes", "-S", "--tile-size") for a in args):
        args = ("--sizes", "ppcg", *args)
    proc = subprocess.run([sys.executable, "-m", "ppcg_py", "--report", "-I", str(POLYBENCH / "utilities"),
                           "-I", str(src.parent), "-DSMALL_DATASET", *args, "--output-dir", str(tmp_path),
                           str(src)], capture_output=True, text=True, check=True)
    return proc.stderr, (tmp_path / f"{kernel}_kernel.cu").read_text()


def test_gemm_kernel_body_appears_once(tmp_path):
    """The tile loops are atomic: the k-tile loop also covers the tile of `C *= beta`
    alone, where isl would otherwise repeat the whole loop body under `if (nk <= 0)`."""
    _, code = _compile(tmp_path, "gemm")
    assert "nk <= 0" not in code
    assert code.count("*= beta;") == 2, code      # private_C[0][0] and private_C[0][1], once each
    assert len(re.findall(r"shared_A\[[^;]*\] = A\[", code)) == 1, code


def test_gemm_keeps_both_operands_tiles_in_shared_memory_and_c_in_registers(tmp_path):
    """Within the card's 48 KB per block (the default), A's and B's 32 x 32 tiles; within
    PPCG's 8192 bytes (--sizes ppcg), one of them."""
    report, code = _compile(tmp_path, "gemm", "--tile-sizes", "32,32,32")
    assert re.search(r"group A: shared shared_A\[32\]\[32\]", report), report
    assert re.search(r"group B: shared shared_B\[32\]\[32\]", report), report
    assert re.search(r"group C: private private_C\[1\]\[2\]", report), report
    assert "__shared__ double shared_A[32][32];" in code and "__shared__ double shared_B[32][32];" in code
    assert "double private_C[1][2];" in code
    if nvcc_available():
        resources = nvcc_resources(tmp_path / "gemm_kernel.cu",
                                   include_dirs=[POLYBENCH / "utilities", kernel_source("gemm").parent])
        assert resources["kernel0"].shared_bytes == 2 * 8192
    report, code = _compile(tmp_path, "gemm", "--sizes", "ppcg")
    assert len(re.findall(r"group [AB]: shared", report)) == 1, report
    assert "tile of 8192 bytes does not fit in shared memory" in report, report


def test_max_shared_memory_is_respected(tmp_path):
    report, code = _compile(tmp_path, "gemm", "--max-shared-memory", "4096")
    assert "shared_A" not in code and "shared_B" not in code, report
    report, code = _compile(tmp_path, "gemm", "--max-shared-memory", "16384")
    assert "shared_A" in code and "shared_B" in code, report


def test_harness_sees_a_missing_barrier(tmp_path):
    """Drop the barrier after gemm's copy into shared memory: some thread order must fail."""
    def without_barrier(cfg, out_dir):
        proc = run_ppcg(cfg, out_dir)
        kernel = out_dir / "gemm_kernel.cu"
        text = kernel.read_text()
        lines = text.split("\n")
        barriers = [k for k, line in enumerate(lines) if "__syncthreads();" in line]
        assert len(barriers) >= 2
        del lines[barriers[1]]   # the one between the copy-in and the computation
        kernel.write_text("\n".join(lines))
        return proc

    intact = verify(kernel_config("gemm", use_nvcc=False), tmp_path / "intact")
    assert intact.ok, intact.summary()
    broken = verify(kernel_config("gemm", use_nvcc=False), tmp_path / "broken", compiler=without_barrier)
    assert not broken.ok
    assert broken.mismatches, broken.summary()


TRANSFER_PROGRAM = """#include <stdio.h>
#define N 100
static void f(int n, double A[N], double B[N], double C[N])
{
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = 2.0 * i;
  for (int i = 0; i < n; i++)
    C[i] = B[i] + 1.0;
#pragma endscop
}
int main(void)
{
  static double A[N], B[N], C[N];
  for (int i = 0; i < N; i++) { A[i] = -1.0; B[i] = i * 0.5; C[i] = -2.0; }
  f(77, A, B, C);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\n");
  const char *names[3] = {"A", "B", "C"};
  double *arrays[3] = {A, B, C};
  for (int a = 0; a < 3; a++) {
    fprintf(stderr, "begin dump: %s\\n", names[a]);
    for (int i = 0; i < N; i++) fprintf(stderr, "%0.17g ", arrays[a][i]);
    fprintf(stderr, "\\nend   dump: %s\\n", names[a]);
  }
  fprintf(stderr, "==END   DUMP_ARRAYS==\\n");
  return 0;
}
"""


def test_transfers_are_minimal(tmp_path):
    src = tmp_path / "transfers.c"
    src.write_text(TRANSFER_PROGRAM)
    subprocess.run([sys.executable, "-m", "ppcg_py", "--output-dir", str(tmp_path), str(src)], check=True)
    host = (tmp_path / "transfers_host.cu").read_text()
    copies_in = [line for line in host.splitlines() if "cudaMemcpyHostToDevice" in line]
    copies_out = [line for line in host.splitlines() if "cudaMemcpyDeviceToHost" in line]
    assert not any("dev_A" in c for c in copies_in), "A is only written: nothing to copy in"
    assert any("dev_A" in c for c in copies_out)
    assert any("dev_B" in c for c in copies_in)
    assert not any("dev_B" in c for c in copies_out), "B is only read: nothing to copy back"
    assert not any("dev_C" in c for c in copies_in)
    # elements 77..99 are not written: they must keep their host values
    report = verify(VerifyConfig(source=src), tmp_path / "work")
    assert report.ok, report.summary()


def test_untouched_array_is_not_transferred(tmp_path):
    src = tmp_path / "untouched.c"
    src.write_text(TRANSFER_PROGRAM.replace("C[i] = B[i] + 1.0;", "A[i] += B[i];"))
    subprocess.run([sys.executable, "-m", "ppcg_py", "--output-dir", str(tmp_path), str(src)], check=True)
    host = (tmp_path / "untouched_host.cu").read_text()
    assert "dev_C" not in host


def _strided_box_covers(column, dim) -> bool:
    """Whether every element of the 1-d `column` is offset + stride * (lower + k), 0 <= k < extent."""
    ls = isl.LocalSpace.from_space(column.get_space())
    var = isl.PwAff.var_on_domain(ls, isl.dim_type.set, 0)

    def on(pa):
        return pa.align_params(column.get_space()).add_dims(isl.dim_type.in_, 1)
    position, inside = var, isl.Set.universe(column.get_space())
    if dim.stride > 1:
        stride = isl.Val(dim.stride, column.get_ctx())
        shifted = var.sub(on(dim.offset))
        inside = shifted.mod_val(stride).eq_set(isl.PwAff.zero_on_domain(ls))
        position = shifted.scale_down_val(stride).floor()
    low = on(dim.lower)
    high = low.add_constant_val(isl.Val(dim.extent, column.get_ctx()))
    return column.is_subset(inside.intersect(position.ge_set(low)).intersect(position.lt_set(high)))


@pytest.mark.parametrize("column, stride", [
    # isl's stride 16 is right, its offset (from a pair of opposite inequalities) is not
    # where p is not a multiple of 3: elements 0, 16 for p = 0, 1, 2 and 5, 21 for p = 3, 4, 5
    ("[p] -> { [e] : exists f : 0 <= p + 9e + 48f <= 2 and 0 <= e < 32 and 0 <= p < 6 }", 1),
    # an offset isl gets right is kept
    ("[p] -> { [e] : exists f : e = p + 16f and 0 <= e < 32 and 0 <= p < 16 }", 16),
])
def test_strided_box_covers_its_elements(column, stride):
    """A private box's stride is used only with an offset that every element is on
    (tests/regressions/private_copy_out_skewed_stride: 32 elements never stored back)."""
    column = isl.Set.read_from_str(new_context(), column)
    (dim,) = fixed_box(column, strides=True)
    assert _strided_box_covers(column, dim)
    assert dim.stride == stride


def test_writes_across_launches_are_no_reuse(tmp_path):
    """jacobi-1d writes each B[i] once per time step, and each time step is a launch: B
    must not get a register buffer (before, the writes of all time steps together
    looked like reuse; heat-3d's 64-element buffers cost 2.5 s of unrolling)."""
    report, code = _compile(tmp_path, "jacobi-1d")
    assert "private_" not in code, report
    assert re.search(r"group B: global \(no reuse and coalesced\)", report), report


def test_block_ownership_is_checked_only_where_the_loops_do_not_show_it(tmp_path):
    """gemm's tile loops start at the block id and step by the grid: no check. A fused
    kernel under a wrapping grid of 3 (fuzz 10:23) gets `(tile - b) % 3 == 0` checks."""
    _, code = _compile(tmp_path, "gemm")
    assert not re.search(r"% 256L? == 0", code), code
    wrapped = Path(__file__).parent / "regressions" / "wrapped_grid_tile_of_every_block.c"
    out = tmp_path / "wrapped"
    out.mkdir()
    assert main(["--sizes", "{ kernel[i] -> tile[8]; kernel[i] -> grid[3] }", "--output-dir", str(out),
                 str(wrapped)]) == 0
    kernel = (out / "wrapped_grid_tile_of_every_block_kernel.cu").read_text()
    assert re.search(r"\(c0 - b_0\) % 3 == 0", kernel), kernel


# -- reference groups (memory/groups.py: _group) ---------------------------------

GROUPS_PROGRAM = """#include <stdio.h>
#define T 12
#define N 64
static double A[2 * T + 2][N], B[N];
static void f(void)
{
#pragma scop
%s
#pragma endscop
}
int main(void)
{
  for (int r = 0; r < 2 * T + 2; r++)
    for (int i = 0; i < N; i++)
      A[r][i] = (r * N + i) %% 7 - 3.0;
  for (int i = 0; i < N; i++)
    B[i] = i * 0.25;
  f();
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\n");
  fprintf(stderr, "begin dump: A\\n");
  for (int r = 0; r < 2 * T + 2; r++)
    for (int i = 0; i < N; i++)
      fprintf(stderr, "%%0.17g ", A[r][i]);
  fprintf(stderr, "\\nend   dump: A\\n");
  fprintf(stderr, "==END   DUMP_ARRAYS==\\n");
  return 0;
}
"""

# a write and a read of another element (A[i][0], written where j = 0) in one tile
READ_WRITE_OVERLAP = """  for (int i = 0; i < 2 * T + 2; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = A[i][j] + A[i][0] * B[j];"""

# S_0 writes the even rows, S_1 the odd ones, each reading the other's row of step t - 1
DISJOINT_WRITES = """  for (int t = 1; t < T; t++)
    for (int i = 0; i < N; i++) {
      A[2 * t][i] = A[2 * t - 1][i] + B[i];
      A[2 * t + 1][i] = A[2 * t - 2][i] * 0.5;
    }"""

# A[i][k] and A[i][k + 1]: two 32 x 32 tiles, or one of 32 x 33
CHAIN_PROGRAM = """#define N 64
static double A[N][N + 1], C[N][N];
void f(void)
{
#pragma scop
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        C[i][j] += A[i][k] * A[i][k + 1];
#pragma endscop
}
"""


def _groups(source: Path, monkeypatch, array: str, **options) -> list[tuple[str, frozenset[str]]]:
    """The groups of `array` in every kernel: (placement, its references as written
    in the SCoP's relations, "A[i, k]", with " (write)" where they write)."""
    import ppcg_py.memory as memory
    from ppcg_py.driver import compile_source
    from ppcg_py.memory.groups import plan_kernel
    from ppcg_py.options import Options
    found = []

    def recording(scop, kernel, opts, names, *host_scalars):
        planned = plan_kernel(scop, kernel, opts, names, *host_scalars)
        written = {acc.tag: re.search(r"-> (\w+\[[^\]]*\])", str(acc.index)).group(1) +
                   (" (write)" if acc.is_write else "") for s in scop.statements for acc in s.accesses}
        found.extend((g.placement, frozenset(written[t] for t in g.refs)) for g in planned.groups if g.array == array)
        return planned
    monkeypatch.setattr(memory, "plan_kernel", recording)
    compile_source(str(source), Options(**options))
    return found


def test_syrk_promotes_a_i_k_alone(monkeypatch):
    """syrk's A[i][k] and A[j][k] are only read: they need not share a copy, and
    apart A[i][k] has a 32 x 32 tile in shared memory (together they have no tile of
    constant size: before, neither got shared memory). Within PPCG's 8192 bytes, A[j][k]'s
    tile no longer fits."""
    src = kernel_source("syrk")
    groups = _groups(src, monkeypatch, "A", include_dirs=(str(POLYBENCH / "utilities"), str(src.parent)),
                     defines=("SMALL_DATASET",), max_shared_memory=8192)
    assert sorted(groups) == [("global", frozenset({"A[j, k]"})), ("shared", frozenset({"A[i, k]"}))]


def _program(tmp_path, body: str) -> Path:
    src = tmp_path / "groups.c"
    src.write_text(GROUPS_PROGRAM % body)
    return src


def test_a_write_and_a_read_of_one_tile_share_a_group(tmp_path, monkeypatch):
    src = _program(tmp_path, READ_WRITE_OVERLAP)
    groups = _groups(src, monkeypatch, "A")
    assert len(groups) == 1, groups
    assert {"A[i, 0]", "A[i, j] (write)"} <= groups[0][1], groups
    report = verify(VerifyConfig(source=src, use_nvcc=False), tmp_path / "work")
    assert report.ok, report.summary()


def test_writes_that_never_meet_get_groups_of_their_own(tmp_path, monkeypatch):
    """Two writes to one array that never touch one element: each gets a group of
    its own (with the read of its rows), two copies that cannot hide each other's
    writes; the program still computes what gcc's does."""
    src = _program(tmp_path, DISJOINT_WRITES)
    groups = _groups(src, monkeypatch, "A")
    writing = [refs for _, refs in groups if any(r.endswith("(write)") for r in refs)]
    assert len(writing) == 2, groups
    assert {"A[2t, i] (write)", "A[1 + 2t, i] (write)"} == {r for refs in writing for r in refs if "write" in r}
    report = verify(VerifyConfig(source=src, use_nvcc=False), tmp_path / "work")
    assert report.ok, report.summary()


def test_group_chains_share_one_tile(tmp_path, monkeypatch):
    """PPCG's --group-chains: A[i][k] and A[i][k + 1] in one 32 x 33 tile (8448
    bytes, not 16384); --no-group-chains keeps them apart."""
    src = tmp_path / "chain.c"
    src.write_text(CHAIN_PROGRAM)
    chained = _groups(src, monkeypatch, "A", max_shared_memory=16384)
    assert chained == [("shared", frozenset({"A[i, k]", "A[i, 1 + k]"}))], chained
    apart = _groups(src, monkeypatch, "A", max_shared_memory=16384, group_chains=False)
    assert sorted(apart) == [("shared", frozenset({"A[i, k]"})), ("shared", frozenset({"A[i, 1 + k]"}))], apart
    from ppcg_py.cli import build_parser, options_from
    assert not options_from(build_parser().parse_args(["--no-group-chains", str(src)])).group_chains
    assert options_from(build_parser().parse_args([str(src)])).group_chains


def test_a_copy_outside_a_loop_must_see_the_writes_of_all_its_iterations():
    """One group writes C[c0] where c1 = 0, another reads it where c1 = 1: never in
    one iteration of both loops, but a copy of either made outside the c1 loop
    (depth 1) would miss or overwrite the other's write. So they overlap at depth 1,
    not at 2, and placements that copy one of them at depth 1 are a stale pair
    (the guard after placement merges them)."""
    from types import SimpleNamespace

    from ppcg_py.memory.groups import ArrayGroup, _Group, _overlap, _Reference, _stale_pair
    ctx = new_context()

    def group(tag: str, c1: int, writes: bool) -> _Group:
        outer = isl.UnionMap.read_from_str(ctx, f"{{ [c0, c1] -> C[c0] : 0 <= c0 < 8 and c1 = {c1} }}")
        relation = isl.UnionMap.read_from_str(ctx, f"{{ S[i, j] -> C[i] : 0 <= i < 8 and j = {c1} }}")
        return _Group((_Reference("C", relation, not writes, writes, tag),), outer, 2)
    write, read = group("ref_0", 0, True), group("ref_1", 1, False)
    assert _overlap(write, read, 1) and not _overlap(write, read, 2)
    kernel = SimpleNamespace(depth=2)

    def placed(placement: str, level: int) -> list[ArrayGroup]:
        return [ArrayGroup("C", frozenset({"ref_0"}), placement, level=level),
                ArrayGroup("C", frozenset({"ref_1"}), "global")]
    assert _stale_pair(kernel, [write, read], placed("private", 1)) == (0, 1)
    assert _stale_pair(kernel, [write, read], placed("shared", 2)) is None
    assert _stale_pair(kernel, [write, read], placed("global", 0)) is None
    # two readers may keep copies of their own at any depth
    other = group("ref_2", 0, False)
    assert _stale_pair(kernel, [other, read], placed("private", 1)) is None


# PPCG 0.09's `__shared__` arrays at LARGE (docs/design.md, "Where a group lives, next to
# PPCG"), and what stands for each of them here: a group in shared memory; a group in
# registers whose elements several threads read (PPCG's registers hold only elements of
# one thread, so it uses shared memory); a scalar the host computed, passed by value
# (PPCG computes it on the device and copies it to shared memory in each kernel).
# (shared, in registers though several threads read them, scalars by value)
PPCG_SHARED = {
    "covariance": (2, (1, 1, 0)),     # mean in registers; one of data's two 8 KB tiles
    # mean, stddev in registers; data's tile (corr's transpose tile served the diagonal's
    # kernel, which runs in the kernel of the rest of corr now: schedule/gpu/absorb.py)
    "correlation": (3, (1, 2, 0)),
    "gemver": (6, (2, 4, 0)),         # u1, v1, u2, v2 in registers; y; A (x does not fit after it)
    # A[i][k], A[k][j] and A[j][j] in registers; A's column read once per thread stays in
    # global memory (a copy through shared memory would read it with the same stride).
    # PPCG's 5 count A[i][k] and A[k][j] in each of its two update kernels, which are one
    # kernel here (schedule/gpu/absorb.py): 3
    "lu": (3, (0, 3, 0)),
    "cholesky": (3, (1, 3, 0)),
    "fdtd-2d": (1, (0, 1, 0)),        # _fict_[t]
    "adi": (12, (3, 0, 10)),          # a..f by value (5 per sweep kernel); p, v, p tiles
    "deriche": (18, (0, 0, 18)),      # a1..a8, b1, b2, c1, c2 by value
}


@pytest.mark.parametrize("kernel", sorted(PPCG_SHARED))
def test_every_group_ppcg_shares_is_promoted_here(kernel):
    from ppcg_py.extract import extract_scops
    from ppcg_py.memory import plan_memory
    from ppcg_py.options import Options
    from ppcg_py.schedule.gpu import schedule_scop
    src = kernel_source(kernel)
    ctx = new_context()
    scop, = extract_scops(str(src), ctx, include_dirs=(str(POLYBENCH / "utilities"), str(src.parent)),
                          defines=("LARGE_DATASET",))
    plan = plan_memory(schedule_scop(scop, Options()), Options())
    groups = [(m.kernel, g) for m in plan.kernels for g in m.groups]
    shared = sum(g.placement == "shared" for _, g in groups)
    several = sum(g.placement == "private" and g.rank > 0 and "PPCG: shared memory" in g.reason for _, g in groups)
    by_value = len({(k, g.array) for k, g in groups if g.placement == "argument"})
    ppcg, expected = PPCG_SHARED[kernel]
    assert shared >= expected[0] and several >= expected[1] and by_value >= expected[2]
    assert shared + several + by_value >= ppcg


def test_kernel_arrays_are_restrict_and_const_where_only_read(tmp_path):
    """No two device arrays alias (each its own allocation): every array parameter is
    __restrict__, and const where the kernel only reads it (nvcc's read-only cache)."""
    _, code = _compile(tmp_path, "gemm", "--tile-sizes", "32,32,32")
    head = next(line for line in code.splitlines() if line.startswith("__global__"))
    assert "double * __restrict__ C" in head and "const double * __restrict__ C" not in head, head
    assert "const double * __restrict__ A" in head and "const double * __restrict__ B" in head, head
