"""Reduction loops run by the threads of a block (schedule/gpu/reduction_threads.py,
memory/groups.py's reduction groups, codegen/reductions.py), checked in the CUDA
emulation in three thread orders and on the OpenCL runtime against gcc."""
from __future__ import annotations

from pathlib import Path

import pytest

from ppcg_py.extract import extract_scops
from ppcg_py.isl_context import new_context
from ppcg_py.options import Options
from ppcg_py.schedule.gpu import schedule_scop
from ppcg_py.verify.harness import VerifyConfig, verify

ORDERS = ("forward", "reverse", "shuffle")

PROGRAM = """
#include <math.h>
#include <stdio.h>
#define N @N@
#define M @M@
static void f(@T@ A[N][M], @T@ x[M], @T@ out[N], @T@ *s)
{
#pragma scop
  for (int i = 0; i < N; i++) {
    out[i] = @INIT@;
    for (int j = 0; j < M; j++)
      @UPDATE@;
  }
#pragma endscop
}
int main(void)
{
  static @T@ A[N][M], x[M], out[N];
  @T@ s = 0;
  for (int i = 0; i < N; i++) for (int j = 0; j < M; j++) A[i][j] = (@T@)((i * 3 + j * 7) % 11) - (@T@)4;
  for (int j = 0; j < M; j++) x[j] = (@T@)(j % 5 + 1);
  f(A, x, out, &s);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\nbegin dump: out\\n");
  for (int i = 0; i < N; i++) fprintf(stderr, "%0.17g\\n", (double)out[i]);
  fprintf(stderr, "end   dump: out\\n==END   DUMP_ARRAYS==\\n");
  return 0;
}
"""


def _program(tmp_path: Path, name: str, *, t="double", init="0", update="out[i] += A[i][j] * x[j]",
             n=70, m=45) -> Path:
    source = tmp_path / f"{name}.c"
    source.write_text(PROGRAM.replace("@T@", t).replace("@INIT@", init).replace("@UPDATE@", update)
                      .replace("@N@", str(n)).replace("@M@", str(m)))
    return source


def _kernels(source: Path, **options):
    opts = Options(**{"device_sizes": True, **options})
    scop = extract_scops(str(source), new_context())[0]
    return schedule_scop(scop, opts).kernels


def _verified(source: Path, *args: str, target: str = "cuda", nvcc: bool = False) -> None:
    report = verify(VerifyConfig(source=source, ppcg_args=args, orders=ORDERS, use_nvcc=nvcc, target=target,
                                 data_type="double"), source.parent / f"work-{target}")
    assert report.ok, report.summary()


def test_a_floating_sum_runs_over_threads_only_with_reductions(tmp_path):
    source = _program(tmp_path, "sum")
    assert not any(k.reductions for k in _kernels(source))
    (kernel,) = _kernels(source, reductions=True)
    assert [r.statement for r in kernel.reductions] == ["S_1"] and len(kernel.thread_ids) == 2
    assert not kernel.block_ids[1:]          # the reduction member is on thread x, never on blocks


def test_whole_warps_add_their_partials_by_shuffles_on_cuda_only(tmp_path):
    """Rows of whole warps: `__shfl_down_sync` adds a warp's 32 partials, then one shared
    slot per warp; OpenCL keeps the tree in local memory; min reads the shuffled value
    from a variable (all lanes shuffle, whichever branch of the comparison they take)."""
    from ppcg_py.cli import main
    source = _program(tmp_path, "warps", t="double", init="1000",
                      update="out[i] = out[i] < A[i][j] * x[j] ? out[i] : A[i][j] * x[j]", m=300)
    assert main([str(source), "-o", str(tmp_path / "warps.cu")]) == 0
    kernel = (tmp_path / "warps_kernel.cu").read_text()
    assert kernel.count("__shfl_down_sync") == 5 and "partial_out_lane = __shfl_down_sync" in kernel
    assert main([str(source), "--target=opencl", "-o", str(tmp_path / "warps_host.c")]) == 0
    assert "shfl" not in (tmp_path / "warps_host_kernel.cl").read_text()
    _verified(source, nvcc=True)


def test_a_floating_sum_over_threads_computes_the_same(tmp_path):
    """70 rows of 45 terms: neither a multiple of the block nor of the warp; nvcc too."""
    _verified(_program(tmp_path, "sum"), "--reductions", nvcc=True)


@pytest.mark.parametrize("t, init, update", [
    ("int", "0", "out[i] += A[i][j] * x[j]"),                   # exact: no flag needed
    ("int", "1", "out[i] *= (A[i][j] % 2 ? 1 : -1)"),
    ("int", "0", "out[i] ^= A[i][j] * x[j]"),
    ("int", "-1", "out[i] &= A[i][j] + 64"),
    ("int", "0", "out[i] |= x[j] << (j % 7)"),
    ("double", "-1000", "out[i] = fmax(out[i], A[i][j] * x[j])"),
    ("double", "1000", "out[i] = out[i] < A[i][j] * x[j] ? out[i] : A[i][j] * x[j]"),
    ("int", "0", "out[i] -= A[i][j]"),
])
def test_exact_reductions_run_over_threads_by_default(tmp_path, t, init, update):
    source = _program(tmp_path, "exact", t=t, init=init, update=update)
    assert any(k.reductions for k in _kernels(source))
    _verified(source)


SCALAR = """
#include <stdio.h>
#define N 1037
#define M 29
static void f(int A[N][M], int s[1], int t[1])
{
#pragma scop
  s[0] = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      s[0] += A[i][j] * (j - 3);
  t[0] = s[0] * 2;
#pragma endscop
}
int main(void)
{
  static int A[N][M], s[1], t[1];
  for (int i = 0; i < N; i++) for (int j = 0; j < M; j++) A[i][j] = (i * 3 + j * 7) % 11 - 4;
  f(A, s, t);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\nbegin dump: st\\n%d\\n%d\\nend   dump: st\\n==END   DUMP_ARRAYS==\\n", s[0], t[0]);
  return 0;
}
"""


def test_a_whole_nest_summed_into_one_location_runs_over_the_blocks(tmp_path):
    """Both loops carry the sum and nothing else is parallel: the outer loop (1,037 rows)
    goes to the threads and blocks of one kernel (the inner one runs in each thread), and
    the blocks' sums are combined by the last block; `s[0] = 0` and `t[0] = s[0] * 2` run
    on the host. (Below 128 values a sum stays on the host: a launch costs more.)"""
    source = tmp_path / "scalar.c"
    source.write_text(SCALAR)
    (kernel,) = _kernels(source)
    assert [r.statement for r in kernel.reductions] == ["S_1"] and kernel.reduction_over_blocks
    _verified(source)


DOT = """
#include <stdio.h>
#define N @N@
static void f(@T@ x[N], @T@ y[N], @T@ s[2])
{
#pragma scop
  s[0] = @INIT@;
  for (int t = 0; t < 3; t++) {
    for (int i = 0; i < N; i++)
      @UPDATE@;
    s[1] = s[0];
    y[t] = y[t] + 1;
  }
#pragma endscop
}
int main(void)
{
  static @T@ x[N], y[N], s[2];
  for (int i = 0; i < N; i++) { x[i] = (@T@)(i % 7) * 3; y[i] = (@T@)(i % 5) - 2; }
  f(x, y, s);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\nbegin dump: s\\n%0.17g %0.17g\\nend   dump: s\\n==END   DUMP_ARRAYS==\\n",
          (double)s[0], (double)s[1]);
  return 0;
}
"""


def _dot(tmp_path: Path, name: str, *, t="double", init="0", update="s[0] += x[i] * y[i]", n=100003) -> Path:
    source = tmp_path / f"{name}.c"
    source.write_text(DOT.replace("@T@", t).replace("@INIT@", init).replace("@UPDATE@", update)
                      .replace("@N@", str(n)))
    return source


def test_a_dot_product_is_spread_over_the_blocks_and_summed_in_block_order(tmp_path):
    """No parallel loop around the sum: its loop goes to the threads and to the blocks (one
    wave of the card's threads at most). Each block stores its sum in a device buffer;
    the last to count itself done (atomicInc, which wraps the count back to 0 for the
    next launch: three launches here) adds the sums in block order. The host loop around
    it launches it three times; 100,003 values, no multiple of the block or the warp."""
    from ppcg_py.cli import main
    source = _dot(tmp_path, "dot")
    (kernel, *_) = [k for k in _kernels(source, reductions=True) if k.reductions]
    assert kernel.reduction_over_blocks and kernel.sizes.grid[0] > 1
    assert main([str(source), "--reductions", "-o", str(tmp_path / "dot.cu")]) == 0
    text = (tmp_path / "dot_kernel.cu").read_text()
    assert "__device__ double kernel0_partial_s_blocks[" in text and "__device__ unsigned int kernel0_partial_s_done;" in text
    fence, ticket = text.index("__threadfence();"), text.index("atomicInc(&kernel0_partial_s_done, gridDim.x - 1u)")
    assert fence < ticket < text.index("for (unsigned int b0_other = 0; b0_other < gridDim.x; b0_other++)")
    _verified(source, "--reductions", nvcc=True)


@pytest.mark.parametrize("t, init, update, atomic", [
    ("double", "0", "s[0] += x[i] * y[i]", "atomicAdd"),
    ("int", "1000000", "s[0] = s[0] < x[i] - y[i] ? s[0] : x[i] - y[i]", "atomicMin"),
    ("int", "0", "s[0] ^= x[i] * y[i]", "atomicXor"),
    ("double", "1", "s[0] *= 1.0 + (x[i] - 9) * 1e-7", None),      # no atomic multiplication
])
def test_atomic_reductions_add_each_blocks_sum_atomically(tmp_path, t, init, update, atomic):
    from ppcg_py.cli import main
    source = _dot(tmp_path, "atomic", t=t, init=init, update=update, n=20011)
    args = ("--reductions", "--atomic-reductions")
    assert main([str(source), *args, "-o", str(tmp_path / "atomic.cu")]) == 0
    text = (tmp_path / "atomic_kernel.cu").read_text()
    if atomic:
        assert f"{atomic}(&s[0], shared_partial_s[0]);" in text and "atomicInc" not in text
    else:
        assert "atomicInc" in text
    _verified(source, *args, nvcc=True)


NEGATIVE_START = """
#include <stdio.h>
#define N 5003
static void f(double x[N + 500], double s[1])
{
#pragma scop
  for (int i = -500; i < N; i++)
    s[0] += x[i + 500] * 0.5;
#pragma endscop
}
int main(void)
{
  static double x[N + 500], s[1];
  for (int i = 0; i < N + 500; i++) x[i] = (i % 7) * 0.5;
  s[0] = 1.0;
  f(x, s);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\nbegin dump: s\\n%0.17g\\nend   dump: s\\n==END   DUMP_ARRAYS==\\n", s[0]);
  return 0;
}
"""


def test_blocks_without_values_to_sum_still_count_themselves_done(tmp_path):
    """Tiles that may start below 0 go to blocks by congruence, over the whole grid: 64
    blocks for 22 tiles. The blocks with nothing to sum store the identity and count
    themselves done too, or the last count would never come and the sum never reach s."""
    source = tmp_path / "negative_start.c"
    source.write_text(NEGATIVE_START)
    sizes = "{ kernel[0] -> tile[256]; kernel[0] -> block[256]; kernel[0] -> grid[64] }"
    (kernel,) = _kernels(source, reductions=True, sizes=sizes, device_sizes=False)
    assert kernel.reduction_over_blocks and kernel.sizes.grid == (64,)
    _verified(source, "--reductions", "--sizes", sizes)


def test_opencl_sums_a_dot_product_in_one_work_group(tmp_path):
    """OpenCL has no spreading over work-groups: one work-group combines the sum."""
    source = _dot(tmp_path, "dot_ocl", n=5003)
    _verified(source, "--reductions", target="opencl")


def test_a_location_read_inside_the_loop_is_no_reduction_loop(tmp_path):
    """`out[i]` is read by another statement of the loop: the order matters, j stays serial."""
    source = _program(tmp_path, "read", t="int", update="{ out[i] += A[i][j]; A[i][j] = out[i]; }")
    assert not any(k.reductions for k in _kernels(source))
    _verified(source)


def test_tiles_with_several_rows_per_thread_keep_the_reduction_serial(tmp_path):
    """The user's sizes give each thread two rows: one register per row would be needed."""
    source = _program(tmp_path, "rows", t="int")
    sizes = "{ kernel[0] -> tile[4, 32]; kernel[0] -> block[2, 32] }"
    assert not any(k.reductions for k in _kernels(source, sizes=sizes, device_sizes=False))
    _verified(source, "--sizes", sizes)


def test_a_sum_over_threads_on_opencl(tmp_path):
    _verified(_program(tmp_path, "ocl"), "--reductions", target="opencl")


@pytest.mark.parametrize("sizes", [
    "{ kernel[i] -> tile[1, 8]; kernel[i] -> block[1, 5]; kernel[i] -> grid[3] }",   # a tree over 5 threads
    "{ kernel[i] -> tile[2, 32]; kernel[i] -> block[2, 32]; kernel[i] -> grid[2] }",  # tiles wrap round 2 blocks
])
def test_user_sizes_that_wrap_or_are_no_power_of_two(tmp_path, sizes):
    source = _program(tmp_path, "user", t="int")
    assert any(k.reductions for k in _kernels(source, sizes=sizes, device_sizes=False))
    _verified(source, "--sizes", sizes)


# the main() of the programs that sum rows into out[] and read them into last[]
LAST_MAIN = """
int main(void)
{
  static int A[N][M], out[N], last[N];
  for (int i = 0; i < N; i++) for (int j = 0; j < M; j++) A[i][j] = (i * 3 + j * 7) % 11 - 4;
  f(A, out, last);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\nbegin dump: last\\n");
  for (int i = 0; i < N; i++) fprintf(stderr, "%d %d\\n", out[i], last[i]);
  fprintf(stderr, "end   dump: last\\n==END   DUMP_ARRAYS==\\n");
  return 0;
}
"""


LAST = """
#include <stdio.h>
#define N 40
#define M 33
static void f(int A[N][M], int out[N], int last[N])
{
#pragma scop
  for (int i = 0; i < N; i++) {
    out[i] = 0;
    for (int j = 0; j < M; j++) {
      out[i] += A[i][j];
      if (j == M - 1)
        last[i] = out[i] * 3;
    }
  }
#pragma endscop
}
""" + LAST_MAIN


def test_a_location_read_after_the_last_update_in_the_band_runs_after_the_combination(tmp_path):
    """`last[i] = out[i] * 3` at j = M - 1 reads the location in the band, after the last
    update: inside the member's loop the partials would not have reached it. It runs in
    the same kernel after the combination (reduction_threads.reduction_epilogue), in a
    copy of the kernel's loops of its own."""
    source = tmp_path / "last.c"
    source.write_text(LAST)
    (kernel,) = _kernels(source)
    assert [r.statement for r in kernel.reductions] == ["S_1"]
    assert {s.get_tuple_name() for s in _sets(kernel.epilogue)} == {"S_2"}
    _verified(source, nvcc=True)


SHARED_SCALAR = """
#include <stdio.h>
#define N 40
#define M 33
static void f(int A[N][M], int out[N], int last[N])
{
  int t;
#pragma scop
  for (int i = 0; i < N; i++) {
    out[i] = 0;
    for (int j = 0; j < M; j++) {
      t = A[i][j] * 2;
      out[i] += t;
    }
    last[i] = out[i] * 3 + t;
  }
#pragma endscop
}
""" + LAST_MAIN


def test_a_reader_of_the_sum_that_shares_a_scalar_with_it_keeps_the_sum_in_one_thread(tmp_path):
    """`last[i]` reads the `t` of the last j, which a thread's private copy would not bring
    to the thread that runs the epilogue: `t` cannot be private there
    (schedule/private.py), and rather than share it between threads the schedule keeps
    its order: the sum stays serial in each thread, `t` private."""
    source = tmp_path / "shared_scalar.c"
    source.write_text(SHARED_SCALAR)
    kernels = _kernels(source)
    assert not any(k.epilogue is not None for k in kernels)
    assert any("t" in k.private for k in kernels)
    _verified(source)


GESUMMV = """
#include <stdio.h>
#define N 45
static void f(double A[N][N], double B[N][N], double x[N], double tmp[N], double y[N])
{
#pragma scop
  for (int i = 0; i < N; i++) {
    tmp[i] = 0;
    y[i] = 0;
    for (int j = 0; j < N; j++) {
      tmp[i] += A[i][j] * x[j];
      y[i] += B[i][j] * x[j];
    }
    y[i] = 1.5 * tmp[i] + 1.2 * y[i];
  }
#pragma endscop
}
int main(void)
{
  static double A[N][N], B[N][N], x[N], tmp[N], y[N];
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) {
    A[i][j] = (double)((i * 3 + j * 7) % 11) / 11; B[i][j] = (double)((i * 5 + j) % 13) / 13;
  }
  for (int j = 0; j < N; j++) x[j] = (double)(j % 5) / 5;
  f(A, B, x, tmp, y);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\nbegin dump: y\\n");
  for (int i = 0; i < N; i++) fprintf(stderr, "%0.17g %0.17g\\n", tmp[i], y[i]);
  fprintf(stderr, "end   dump: y\\n==END   DUMP_ARRAYS==\\n");
  return 0;
}
"""


@pytest.mark.parametrize("target", ["cuda", "opencl"])
def test_gesummv_sums_over_threads_and_combines_them_in_the_same_kernel(tmp_path, target):
    """Both sums over the threads; `y[i] = 1.5 * tmp[i] + 1.2 * y[i]`, at the last j in the
    band (after the sums in its sequence), runs after their combinations."""
    source = tmp_path / "gesummv.c"
    source.write_text(GESUMMV)
    (kernel,) = _kernels(source, reductions=True)
    assert sorted(r.statement for r in kernel.reductions) == ["S_2", "S_3"]
    assert {s.get_tuple_name() for s in _sets(kernel.epilogue)} == {"S_4"}
    _verified(source, "--reductions", target=target)


SERIAL_AROUND = """
#include <math.h>
#include <stdio.h>
#define N 300
#define K 7
static void f(double A[N][K], double R[K], double y[N], double z[N], double r[N], double alpha[1], double beta[1])
{
  double nrm, sum;
#pragma scop
  for (int k = 0; k < K; k++) {
    nrm = 0.0;
    for (int i = 0; i < N; i++)
      nrm += A[i][k] * A[i][k];
    R[k] = sqrt(nrm);
    for (int i = 0; i < N; i++)
      for (int j = k + 1; j < K; j++)
        A[i][j] = A[i][j] - A[i][k] / R[k] * 0.125;
  }
  for (int k = 1; k < N; k++) {
    beta[0] = (1 - alpha[0] * alpha[0]) * beta[0];
    sum = 0.0;
    for (int i = 0; i < k; i++)
      sum += r[k - i - 1] * y[i];
    alpha[0] = -(r[k] + sum) / beta[0];
    for (int i = 0; i < k; i++)
      z[i] = y[i] + alpha[0] * y[k - i - 1];
    for (int i = 0; i < k; i++)
      y[i] = z[i];
    y[k] = alpha[0];
  }
#pragma endscop
}
int main(void)
{
  static double A[N][K], R[K], y[N], z[N], r[N];
  static double alpha[1] = {0.25}, beta[1] = {1.0};
  for (int i = 0; i < N; i++) for (int j = 0; j < K; j++) A[i][j] = (double)((i * 3 + j * 7) % 11) / 11 + 0.5;
  for (int i = 0; i < N; i++) { r[i] = (double)(i % 7) / 50; y[i] = 0.0; }
  f(A, R, y, z, r, alpha, beta);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\nbegin dump: out\\n");
  for (int k = 0; k < K; k++) fprintf(stderr, "%0.17g\\n", R[k]);
  for (int i = 0; i < N; i++) fprintf(stderr, "%0.17g\\n", y[i]);
  fprintf(stderr, "%0.17g %0.17g\\nend   dump: out\\n==END   DUMP_ARRAYS==\\n", alpha[0], beta[0]);
  return 0;
}
"""


@pytest.mark.parametrize("target", ["cuda", "opencl"])
def test_a_sum_between_serial_statements_runs_over_a_block_of_threads(tmp_path, target):
    """gramschmidt's `nrm` and durbin's `sum`: the loop around is serial, so before the
    sum ran in one thread, in a single-thread kernel with the statements around it. Now
    the sum gets a block of threads (300 and up to 299 terms: no multiple of the block),
    and `beta[0] = ...` (independent of the sum) joins `alpha[0] = ...` in one kernel."""
    source = tmp_path / "serial_around.c"
    source.write_text(SERIAL_AROUND)
    kernels = _kernels(source, reductions=True)
    summed = [k for k in kernels if k.reductions]
    assert sorted(r.statement for k in summed for r in k.reductions) == ["S_1", "S_6"]
    assert all(not k.block_ids and k.sizes.block[0] >= 128 for k in summed)
    single = [k for k in kernels if not k.thread_ids]
    assert len(single) == 4      # nrm = 0; R[k] = sqrt(nrm); sum = 0; beta, alpha and y[k] together
    assert not any(k.reductions for k in _kernels(source))    # a floating sum: only with --reductions
    _verified(source, "--reductions", target=target)


GEMM = """
#define N @N@
static void f(double C[N][N], double A[N][N], double B[N][N])
{
#pragma scop
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
}
"""


@pytest.mark.parametrize("n, combined", [(100, True), (600, False)])
def test_the_threads_combine_a_sum_only_where_the_parallel_loops_leave_the_gpu_short(tmp_path, n, combined):
    """100 x 100 parallel points are far from a wave of an H100 (270,336 threads): k goes
    to thread x. 600 x 600 fill it: k stays in each thread, whose tiles are reused from
    shared memory and registers."""
    source = tmp_path / "gemm.c"
    source.write_text(GEMM.replace("@N@", str(n)))
    (kernel,) = _kernels(source, reductions=True)
    assert bool(kernel.reductions) == combined


CHAIN = """
#include <math.h>
#include <stdio.h>
#define N 50
#define M 37
static void f(double data[N][M], double stddev[M])
{
#pragma scop
  for (int j = 0; j < M; j++) {
    stddev[j] = 0.0;
    for (int i = 0; i < N; i++)
      stddev[j] += data[i][j] * data[i][j];
    stddev[j] /= N;
    stddev[j] = sqrt(stddev[j]);
    stddev[j] = stddev[j] <= 0.5 ? 1.0 : stddev[j];
  }
#pragma endscop
}
int main(void)
{
  static double data[N][M], stddev[M];
  for (int i = 0; i < N; i++) for (int j = 0; j < M; j++) data[i][j] = (double)((i * 3 + j * 7) % 11) / 11;
  f(data, stddev);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\nbegin dump: stddev\\n");
  for (int j = 0; j < M; j++) fprintf(stderr, "%0.17g\\n", stddev[j]);
  fprintf(stderr, "end   dump: stddev\\n==END   DUMP_ARRAYS==\\n");
  return 0;
}
"""


@pytest.mark.parametrize("target", ["cuda", "opencl"])
def test_the_readers_of_a_sum_run_after_its_combination_with_what_depends_on_them(tmp_path, target):
    """correlation's stddev: the division reads the sum, the square root the division and
    the guard the root; all three run after the combination, in the sum's kernel (only
    the first depends on the sum directly), after its last barrier."""
    from ppcg_py.cli import main
    source = tmp_path / "chain.c"
    source.write_text(CHAIN)
    (kernel,) = _kernels(source, reductions=True)
    assert {s.get_tuple_name() for s in _sets(kernel.epilogue)} == {"S_2", "S_3", "S_4"}
    scop = extract_scops(str(source), new_context())[0]
    notes = schedule_scop(scop, Options(device_sizes=True, reductions=True, verbose=True)).notes
    assert "kernel0: S_2, S_3, S_4 read the result after the combination, in the same kernel" in notes
    if target == "cuda":
        assert main([str(source), "--reductions", "-o", str(tmp_path / "chain.cu")]) == 0
        text = (tmp_path / "chain_kernel.cu").read_text()
        final = text.index("stddev[b0] = stddev[b0] + shared_partial_stddev")
        assert final < text.index("__syncthreads();", final) < text.index("/= 50", final)
    else:   # another work-item reads what thread x = 0 wrote: the barrier orders global memory
        assert main([str(source), "--reductions", "--target=opencl", "-o", str(tmp_path / "chain_host.c")]) == 0
        text = (tmp_path / "chain_host_kernel.cl").read_text()
        fence = text.index("barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);")
        assert text.count("CLK_GLOBAL_MEM_FENCE") == 1 and fence < text.index("/= 50")
    _verified(source, "--reductions", target=target)


def _sets(domain):
    from ppcg_py.isl_context import sets_of
    return sets_of(domain)


LUDCMP = """
#include <stdio.h>
#define N 150
static void f(double A[N][N])
{
  double w;
#pragma scop
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < i; j++) {
      w = A[i][j];
      for (int k = 0; k < j; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w / A[j][j];
    }
    for (int j = i; j < N; j++) {
      w = A[i][j];
      for (int k = 0; k < i; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w;
    }
  }
#pragma endscop
}
int main(void)
{
  static double A[N][N];
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) A[i][j] = i == j ? N + 1.0 : (double)((i * 3 + j * 7) % 11) / 22;
  f(A);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\nbegin dump: A\\n");
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) fprintf(stderr, "%0.17g\\n", A[i][j]);
  fprintf(stderr, "end   dump: A\\n==END   DUMP_ARRAYS==\\n");
  return 0;
}
"""


def test_a_sum_keeps_one_thread_where_threads_would_cost_a_scalar_its_private_copies(tmp_path):
    """ludcmp: giving the first `w -= ...` sum threads of its own would split `w`'s live
    range over three launches, and `w` could no longer be private in the parallel
    second `j` loop: the whole SCoP would run serially. The sum keeps one thread."""
    source = tmp_path / "ludcmp.c"
    source.write_text(LUDCMP)
    kernels = _kernels(source, reductions=True)
    assert any(k.block_ids and "w" in k.private for k in kernels)
    _verified(source, "--reductions")


def test_a_column_read_once_stays_in_global_memory_and_the_partials_count_as_shared(tmp_path):
    """gramschmidt's `nrm += A[i][k] * A[i][k]`: A's column, one element per row, would be
    copied to shared memory with the same stride, so it is read where it is; the kernel's
    shared memory is the warps' partials (one double per warp of the 256-thread row)."""
    from ppcg_py.memory import plan_memory
    source = tmp_path / "serial_around.c"
    source.write_text(SERIAL_AROUND)
    opts = Options(reductions=True, device_sizes=True)
    scop = extract_scops(str(source), new_context())[0]
    scheduled = schedule_scop(scop, opts)
    plan = plan_memory(scheduled, opts)
    (kernel,) = [k for k in scheduled.kernels if [r.statement for r in k.reductions] == ["S_1"]]
    memory = plan.kernel(kernel.name)
    (column,) = [g for g in memory.groups if g.array == "A"]
    assert column.placement == "global" and "one element per row" in column.reason
    (partials,) = [g for g in memory.groups if g.placement == "reduction"]
    assert partials.warp == 32 and partials.slots == kernel.sizes.block[-1] // 32
    assert memory.shared_bytes == 8 * partials.slots


GEMVER_X = """
#include <stdio.h>
#define N 300
static void f(double A[N][N], double x[N], double y[N], double z[N])
{
#pragma scop
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      x[i] = x[i] + 1.5 * A[j][i] * y[j];
  for (int i = 0; i < N; i++)
    x[i] = x[i] + z[i];
#pragma endscop
}
int main(void)
{
  static double A[N][N], x[N], y[N], z[N];
  for (int i = 0; i < N; i++) {
    x[i] = i % 3; y[i] = (i % 7) * 0.5; z[i] = i * 0.25;
    for (int j = 0; j < N; j++) A[i][j] = ((i + 2 * j) % 9) - 4;
  }
  f(A, x, y, z);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\nbegin dump: x\\n");
  for (int i = 0; i < N; i++) fprintf(stderr, "%0.17g\\n", x[i]);
  fprintf(stderr, "end   dump: x\\n==END   DUMP_ARRAYS==\\n");
  return 0;
}
"""


def test_an_update_of_the_sum_after_it_leaves_the_sum_to_the_threads(tmp_path):
    """gemver's `x[i] = x[i] + z[i]` after the sum into x[i] is a reduction statement too,
    but not along j: it reads the sum, so it runs after the combination of the sum over
    the threads (it kept the sum serial in each thread)."""
    source = tmp_path / "gemver_x.c"
    source.write_text(GEMVER_X)
    (kernel,) = _kernels(source, reductions=True)
    assert [r.statement for r in kernel.reductions] == ["S_0"]
    assert {s.get_tuple_name() for s in _sets(kernel.epilogue)} == {"S_1"}
    _verified(source, "--reductions")


# an epilogue under two parallel loops (a block row per (i, j)): 63 sums of 1,003 terms
TWO_PARALLEL = """#include <stdio.h>
#define N 9
#define M 7
#define K 1003
static void f(double A[N][M][K], double s[N][M], double t[N][M])
{
#pragma scop
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      s[i][j] = 1.0;
      for (int k = 0; k < K; k++)
        s[i][j] += A[i][j][k] * 0.25;
      t[i][j] = s[i][j] * 2 + i;
    }
#pragma endscop
}
int main(void)
{
  static double A[N][M][K], s[N][M], t[N][M];
  for (int i = 0; i < N; i++) for (int j = 0; j < M; j++) for (int k = 0; k < K; k++) A[i][j][k] = (i * 3 + j * 5 + k) % 13;
  f(A, s, t);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\nbegin dump: t\\n");
  for (int i = 0; i < N; i++) for (int j = 0; j < M; j++) fprintf(stderr, "%0.17g %0.17g\\n", s[i][j], t[i][j]);
  fprintf(stderr, "end   dump: t\\n==END   DUMP_ARRAYS==\\n");
  return 0;
}
"""

# max and + over blocks, each its own kernel, under a host loop whose sums shrink, with a
# parameter: every launch reads the count back at 0
SHRINKING = """#include <stdio.h>
#include <math.h>
static void f(int n, double x[20000], double s[1], int c[1])
{
#pragma scop
  for (int t = 1; t < 4; t++) {
    for (int i = 0; i < n - t * 100; i++) {
      s[0] = fmax(s[0], x[i] * t);
      c[0] += (int)x[i] % 3;
    }
    x[t] = s[0] * 0.5;
  }
#pragma endscop
}
int main(int argc, char **argv)
{
  static double x[20000], s[1];
  static int c[1];
  for (int i = 0; i < 20000; i++) x[i] = (double)((i * 37) % 1001) - 500;
  s[0] = -1e30;
  f(argc > 3 ? 10 : 19991, x, s, c);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\nbegin dump: s\\n%0.17g %d %0.17g\\nend   dump: s\\n==END   DUMP_ARRAYS==\\n", s[0], c[0], x[2]);
  return 0;
}
"""


@pytest.mark.parametrize("name, text", [("two_parallel", TWO_PARALLEL), ("shrinking", SHRINKING)])
def test_epilogues_and_sums_over_blocks_in_other_shapes(tmp_path, name, text):
    source = tmp_path / f"{name}.c"
    source.write_text(text)
    kernels = [k for k in _kernels(source, reductions=True) if k.reductions]
    if name == "two_parallel":
        assert len(kernels) == 1 and kernels[0].epilogue is not None and len(kernels[0].block_ids) == 2
    else:
        assert len(kernels) == 2 and all(k.reduction_over_blocks for k in kernels)
    _verified(source, "--reductions")
    _verified(source, "--reductions", "--atomic-reductions", nvcc=True)
