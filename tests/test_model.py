"""benchmarks/model.py and ppcg_py/points.py: exact counts of integer points (against
isl's enumeration), the coalescing rule on kernel text and on small generated kernels,
the Little's-law bound, and a whole program's numbers (gemm, jacobi-1d at MINI)."""
from __future__ import annotations

import importlib.util
import math
import random
import sys
import time
from pathlib import Path

import islpy as isl
import pytest

_BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, _BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module        # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


from ppcg_py import points  # noqa: E402
model = _load("model")

from polybench.kernels import by_name  # noqa: E402
from ppcg_py.driver import compile_source  # noqa: E402
from ppcg_py.gpu_targets import GPUS  # noqa: E402
from ppcg_py.options import Options  # noqa: E402

H100 = GPUS["H100"]


# -- counting --------------------------------------------------------------------
def _enumerated(s: isl.Set, values: dict[str, int]) -> int:
    return points.fix_parameters(s, values).count_val().to_python()


@pytest.mark.parametrize("text", [
    "[n] -> { S[i, j, k] : 0 <= i < n and 0 <= j < i and 0 <= k < j }",              # lu's tetrahedron
    "[n, m] -> { S[i, j] : 0 <= i < n and 0 <= j < m }",
    "[n] -> { S[i, j] : 0 <= i < n and 0 <= j <= i and exists (e: i = 2e) }",        # a stride
    "[n] -> { S[i, j] : 0 <= i < n and 0 <= j and 3j <= 2i + 1 }",                   # no unit coefficient
    "[n] -> { S[t, i, j] : 0 <= t < n and 0 < i < n - 1 and 0 < j < n - 1 and i + j <= n + t }",
    "[n] -> { S[i, j] : 0 <= i < n and j = 2i + 1 }",                                # an equality
    "[n] -> { S[] : n > 3 }",
    "[n] -> { S[i] : n > 30 and 0 <= i < n }",                                       # empty at small n
    "[n] -> { A[i, j] : 0 <= i < n and 0 <= j < n and (i < 3 or j > 5) }",           # a union
    "[n] -> { [c, t, i] : c = 4t + 2i and 0 <= t < n and 0 < i < n - 1 }",           # a skewed wavefront
    "[n] -> { A[a, b] : exists (t, i, j : 0 <= t < 3 and 0 < i < n - 1 and 0 < j < n - 1 and 4t + 2i + j = n "
    "and a = i + 1 and -1 <= b - j <= 1) }",                                           # a footprint with a division
])
@pytest.mark.parametrize("n", [1, 7, 12])
def test_counts_equal_isl_enumeration(text, n):
    s = isl.Set(text)
    values = {name: n + k for k, name in enumerate(s.get_space().get_var_names(isl.dim_type.param))}
    assert points.count(s, values) == _enumerated(s, values)


def _random_set(rng: random.Random) -> tuple[isl.Set, int]:
    d = rng.randint(1, 4)
    names = [f"x{k}" for k in range(d)]
    cons = [f"-{rng.randint(0, 3)} <= {v} <= {rng.randint(2, 9)}" for v in names]
    for _ in range(rng.randint(0, 4)):
        terms = " + ".join(f"{c}{v}" if c >= 0 else f"0 - {-c}{v}" for c, v in
                           zip((rng.randint(-3, 3) for _ in names), names))
        cons.append(f"{terms} {rng.choice(['>=', '<=', '>=', '<=', '='])} {rng.randint(-6, 6)}")
    if rng.random() < 0.3:
        cons.append(f"exists (e: {names[-1]} = {rng.randint(2, 3)}e + {rng.randint(0, 1)})")
    s = isl.Set(f"[n] -> {{ [{', '.join(names)}] : " + " and ".join(cons) + " }")
    if rng.random() < 0.3:
        s = s.union(isl.Set(f"[n] -> {{ [{', '.join(names)}] : "
                            + " and ".join(f"0 <= {v} <= {rng.randint(1, 5)}" for v in names) + " }"))
    return s, d


def test_counts_per_prefix_equal_brute_force_on_random_polytopes():
    """Per value of the first dimensions (a kernel's work per host-loop iteration), on
    random sets with non-unit coefficients, equalities, strides and unions."""
    rng = random.Random(2026)
    for _ in range(150):
        s, d = _random_set(rng)
        keys = rng.randint(0, d)
        found: list[tuple[int, ...]] = []
        points.fix_parameters(s, {"n": 5}).foreach_point(lambda p: found.append(
            tuple(p.get_coordinate_val(isl.dim_type.set, k).to_python() for k in range(d))))
        brute: dict[tuple[int, ...], int] = {}
        for p in found:
            brute[p[:keys]] = brute.get(p[:keys], 0) + 1
        assert points.count_by_prefix(s, keys, {"n": 5}) == brute, s


def test_floor_sums_match_their_definition():
    assert all(points.floor_sum(n, m, a, b) == sum((a * i + b) // m for i in range(n))
               for n in range(6) for m in range(1, 5) for a in range(-5, 6) for b in range(-6, 7))


def test_large_domains_count_exactly_in_milliseconds():
    start = time.perf_counter()
    assert points.count(isl.Set("[ni, nj, nk] -> { S[i, j, k] : 0 <= i < ni and 0 <= j < nj and 0 <= k < nk }"),
                        {"ni": 1000, "nj": 1100, "nk": 1200}) == 1000 * 1100 * 1200
    n = 2000
    assert points.count(isl.Set("[n] -> { S[i, j, k] : 0 <= i < n and 0 <= j < i and 0 <= k < j }"),
                        {"n": n}) == n * (n - 1) * (n - 2) // 6
    per_run = points.count_by_prefix(isl.Set("[n] -> { [c, i, j, k] : k = c and 0 <= i < n and i <= j < n "
                                             "and 0 <= k < i }"), 1, {"n": n})
    assert len(per_run) == n - 1 and per_run[(0,)] == sum(n - i for i in range(1, n))
    assert time.perf_counter() - start < 2


# -- coalescing ------------------------------------------------------------------
KERNEL_TEXT = """
__global__ void __launch_bounds__(512) kernel0(double *A, double *B, float *C, int n, int c0)
{
  int b0 = blockIdx.y, b1 = blockIdx.x;
  int t0 = threadIdx.y, t1 = threadIdx.x;
  __shared__ double shared_A[32][32];
  double private_B[1];

  for (int c4 = ppcg_max(t1, (t1 + 15) % 16 - 32 * b1 + 1); c4 <= 31; c4 += 16) {
    shared_A[t0][c4] = A[(32 * b0 + t0) * 1300 + (32 * b1 + c4)];
    private_B[0] = B[(32 * b1 + t1) * 1300 + t0] + B[c0 * 1300 + 7];
    C[2 * t1] = C[ppcg_floord(t1 + c0, 32)] + C[t1 * t1];
    B[(32 * b0 + t0) * 1300 + c4] = shared_A[t0][c4] * private_B[0];
  }
}
"""


def test_strides_along_thread_x_follow_the_loops_and_ignore_local_arrays():
    (text,) = model.kernel_texts(KERNEL_TEXT).values()
    assert text.globals == {"A": 8, "B": 8, "C": 4}
    strides = [(r.array, r.read, r.write, r.stride) for r in text.refs]
    assert strides == [
        ("A", True, False, 1),          # c4 starts at t1 (the % only jumps once per 16 threads)
        ("B", True, False, 1300),       # a column: one row per thread
        ("B", True, False, 0),          # the same element in every thread
        ("C", False, True, 2),          # the left-hand side first
        ("C", True, False, 0),          # floord(t1 + c0, 32): constant between jumps
        ("C", True, False, None),       # not affine in t1
        ("B", False, True, 1),
    ]
    assert text.coalesced == 4 and text.loads_in_flight == 2
    assert [r.sector_factor for r in text.refs] == [1.0, 4.0, 1.0, 2.0, 1.0, 8.0, 1.0]
    assert text.factor("B", write=False) == 4.0 and text.factor("B", write=True) == 1.0


def _generated_kernel(tmp_path: Path, body: str, **options) -> model.KernelText:
    source = tmp_path / "k.c"
    source.write_text("void f(double A[64][64], double B[64][64]) {\n  int i, j;\n#pragma scop\n"
                      f"  for (i = 0; i < 64; i++)\n    for (j = 0; j < 64; j++)\n      {body}\n"
                      "#pragma endscop\n}\n")
    files = compile_source(str(source), Options(**options))
    (text,) = model.kernel_texts(files.kernel).values()
    return text


def test_a_generated_copy_is_coalesced_and_a_transpose_in_global_memory_is_not(tmp_path):
    copy = _generated_kernel(tmp_path, "B[i][j] = A[i][j];", use_shared_memory=False, use_private_memory=False)
    assert {(r.array, r.stride) for r in copy.refs} == {("A", 1), ("B", 1)}
    transpose = _generated_kernel(tmp_path, "B[j][i] = A[i][j];", use_shared_memory=False,
                                  use_private_memory=False)
    assert sorted(abs(r.stride) for r in transpose.refs) == [1, 64]
    assert transpose.coalesced == 1 and max(r.sector_factor for r in transpose.refs) == 4.0


# -- the bound and the time --------------------------------------------------------
def test_littles_law_bound():
    resident = H100.resident_threads
    assert model.littles_law_bound(H100, resident, 8, 1) == H100.dram_bandwidth     # a full wave: the DRAM
    assert model.littles_law_bound(H100, 10 * resident, 8, 1) == H100.dram_bandwidth
    assert model.littles_law_bound(H100, 1, 8, 1) == pytest.approx(8 / 600e-9)       # one load per latency
    assert model.littles_law_bound(H100, 2048, 8, 3) == pytest.approx(2048 * 8 * 3 / 600e-9)
    # threads past one wave wait for a slot: they add nothing in flight
    assert model.littles_law_bound(H100, 1000, 32, 1) == 4 * model.littles_law_bound(H100, 1000, 8, 1)


def test_a_run_is_bound_by_the_slower_of_compute_and_memory():
    work = model.Work(executions=1, fp64=int(34e9), reads={"A": 1000}, writes={})
    seconds, kind, bound = model.run_time(H100, H100.resident_threads, work, 8000.0, 1)
    assert (seconds, kind, bound) == (pytest.approx(1e-3), "compute", H100.dram_bandwidth)
    work = model.Work(executions=1, fp64=1, reads={"A": 1000}, writes={})
    seconds, kind, _ = model.run_time(H100, 1, work, 8000.0, 1)
    assert kind == "latency" and seconds == pytest.approx(1000 * 600e-9)


# -- whole programs ------------------------------------------------------------------
def test_gemm_at_mini_counts_its_flops_bytes_and_copies_exactly():
    sizes = by_name("gemm").sizes_of("MINI")
    ni, nj, nk = sizes["NI"], sizes["NJ"], sizes["NK"]
    m = model.model_program(by_name("gemm"), "MINI", ["--sizes", "ppcg"])
    (site,) = m.sites
    assert site.runs == 1 and site.exact and site.coalesced == site.refs
    assert site.work.executions == ni * nj + ni * nj * nk
    assert site.work.fp64 == ni * nj + 3 * ni * nj * nk        # C *= beta; C += alpha * A * B
    # compulsory traffic: A, B and C read once, C written once
    assert site.dram_bytes == 8 * (ni * nk + nk * nj + 2 * ni * nj)
    assert m.transfer_bytes == 8 * (ni * nk + nk * nj + 2 * ni * nj)     # C in and out, A and B in
    threads = math.prod(site.block) * math.prod(hi for _, hi in site.grid)
    memory = site.dram_bytes / model.littles_law_bound(H100, threads, 8, site.loads_in_flight)
    compute = site.work.fp64 / H100.fp64_flops
    assert m.predicted == pytest.approx(max(memory, compute) + H100.launch_cost
                                        + m.transfer_bytes / H100.host_bandwidth)


def test_a_time_loop_gives_each_run_its_own_work(tmp_path):
    """jacobi-1d: two launches per time step, each over the n - 2 inner points; the
    CSV of a comparison carries both mappings' times."""
    n, tsteps = by_name("jacobi-1d").sizes_of("MINI")["N"], by_name("jacobi-1d").sizes_of("MINI")["TSTEPS"]
    out, table = tmp_path / "m.csv", tmp_path / "m.md"
    assert model.main(["jacobi-1d", "--dataset", "MINI", "--ppcg-arg=--sizes=ppcg", "--compare=--tile-size=16",
                       "--csv", str(out), "--out", str(table)]) == 0
    header, row = out.read_text().splitlines()
    values = dict(zip(header.split(","), row.split(",")))
    assert values["kernel"] == "jacobi-1d" and values["launches"] == str(2 * tsteps) and values["exact"] == "1"
    assert float(values["predicted_speedup"]) == pytest.approx(
        float(values["compare_predicted_s"]) / float(values["predicted_s"]), rel=1e-3)
    assert values["compare_ppcg_args"] == "--tile-size=16"
    assert float(values["gflop"]) == pytest.approx(2 * tsteps * (n - 2) * 3 / 1e9)   # 0.33333 * (a + b + c)
    assert "| jacobi-1d |" in table.read_text()


def test_a_device_loop_is_one_launch_that_pays_a_latency_per_inner_run():
    """jacobi-1d with sizes chosen for the GPU: one launch of one block runs the time
    loop; the same work as the host's 2 x tsteps launches, one launch cost, and a DRAM
    latency for each of the inner kernels' runs."""
    n, tsteps = by_name("jacobi-1d").sizes_of("MINI")["N"], by_name("jacobi-1d").sizes_of("MINI")["TSTEPS"]
    program = model.model_program(by_name("jacobi-1d"), "MINI", gpu=H100)
    (site,) = program.sites
    assert site.kernel.startswith("device_loop") and site.runs == 1
    assert site.work.fp64 == 2 * tsteps * (n - 2) * 3
    assert site.seconds["launch"] == pytest.approx(H100.launch_cost)
    assert site.seconds["latency"] >= 2 * tsteps * H100.dram_latency


def test_copies_are_read_from_the_host_code():
    host = """
    cudaCheckReturn(cudaMemcpy2D(dev_C, 1100 * sizeof(double), (double *) C, 1100 * sizeof(double), (ppcg_min(1099, nj - 1) + 1) * sizeof(double), ppcg_min(999, ni - 1) + 1, cudaMemcpyHostToDevice));
    for (int c0 = 0; c0 < 3; c0++) {
      cudaCheckReturn(cudaMemcpy(&w, dev_w, sizeof(double), cudaMemcpyDeviceToHost));
    }
    """
    _, copies = model.mapping.host_sites(host)
    env = {"ni": 1000, "nj": 1100}
    assert [c.size(env) for c in copies] == [1000 * 1100 * 8, 8]
    assert copies[0].to_device and not copies[1].to_device
    assert model._copied(copies[1], env) == 24
