"""The C target (`--target=c --openmp`, with and without `--tile`): NAME.ppcg.c built
by gcc -fopenmp and run with 1, 2 and 4 threads computes what gcc's build of the
original computes; scalars a parallel loop keeps per iteration are private there;
the code outside the SCoPs is the input's."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from ppcg_py.verify.harness import VerifyConfig, run_ppcg, verify

from polybench_cases import EVERY_LOOP, kernel_config

PROGRAM = """\
#include <stdio.h>

static void compute(int n, int m, double A[{N}][{M}], double B[{N}][{M}], double x[{N}], double y[{M}],
                    double out[4])
{{
  int i, j, k;
  double s, t, sum;
{body}
}}

static void dump(const char *name, const double *v, int count)
{{
  fprintf(stderr, "begin dump: %s\\n", name);
  for (int k = 0; k < count; k++)
    fprintf(stderr, "%.17g\\n", v[k]);
  fprintf(stderr, "end   dump: %s\\n", name);
}}

int main(void)
{{
  static double A[{N}][{M}], B[{N}][{M}], x[{N}], y[{M}], out[4];
  for (int a = 0; a < {N}; a++)
    for (int b = 0; b < {M}; b++) {{
      A[a][b] = (double) ((7 * a + 3 * b) % 13) / 13.0;
      B[a][b] = (double) ((5 * a + 11 * b) % 17) / 17.0;
    }}
  for (int a = 0; a < {N}; a++) x[a] = (a % 5) * 0.25;
  for (int b = 0; b < {M}; b++) y[b] = (b % 3) * 0.5;
  compute({N}, {M}, A, B, x, y, out);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\n");
  dump("A", &A[0][0], {N} * {M});
  dump("B", &B[0][0], {N} * {M});
  dump("x", x, {N});
  dump("y", y, {M});
  dump("out", out, 4);
  fprintf(stderr, "==END   DUMP_ARRAYS==\\n");
  return 0;
}}
"""

# extents 37 x 29: no tile size used here divides them
BODIES = {
    # a scalar whose live range is one iteration of the parallel loop: private there
    "private_scalar": """\
#pragma scop
  for (i = 0; i < n; i++) {
    s = 0.0;
    for (j = 0; j < m; j++)
      s += A[i][j] * y[j];
    x[i] = s;
  }
#pragma endscop""",
    # a reduction over the whole nest: no parallel loop may carry it; its value survives the SCoP
    "reduction_scalar": """\
#pragma scop
  sum = 0.0;
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      sum += A[i][j] * B[i][j];
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      B[i][j] = B[i][j] * 0.5 + A[i][j];
  out[0] = sum;
#pragma endscop
  out[1] = sum * 2.0;""",
    # a local of the SCoP (declared inside it) and a scalar whose last value is read after the loop
    "local_and_last_value": """\
#pragma scop
  for (i = 0; i < n; i++) {
    double u = x[i] * 2.0;
    for (j = 0; j < m; j++)
      A[i][j] = A[i][j] * u + B[i][j];
  }
  for (j = 0; j < m; j++) {
    t = y[j] + 1.0;
    y[j] = t * t;
  }
  out[2] = t;
#pragma endscop""",
    # a tiled matrix product and a 2-D stencil under a time loop (skewed tiles)
    "product_and_stencil": """\
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      B[i][j] = 0.5 * B[i][j];
      for (k = 0; k < m; k++)
        B[i][j] += A[i][k] * A[j][k];
    }
  for (k = 0; k < 5; k++)
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < m - 1; j++)
        A[i][j] = 0.2 * (A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
#pragma endscop""",
    # a time loop around two parallel nests and statements of its own (one region, the
    # statements under `omp single`; `s` is shared, written there and read in the nests)
    "time_loop_region": """\
#pragma scop
  for (k = 0; k < 6; k++) {
    x[k] = x[k] * 0.5 + A[k][1];
    s = y[k] + x[k];
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < m - 1; j++)
        B[i][j] = 0.25 * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]) + s;
    for (i = 1; i < n - 1; i++) {
      t = B[i][1] * 0.125;
      for (j = 1; j < m - 1; j++)
        A[i][j] = B[i][j] * 0.5 + x[k] + t;
    }
  }
  out[3] = s;
#pragma endscop""",
}

OPTION_SETS = {
    "untiled": (),
    "tiled": ("--tile",),
    "tile-sizes": ("--tile", "--tile-sizes", "8,5,3"),
    "sizes": ("--tile", "--sizes", "{ kernel[i] -> tile[7,4,6] }"),
    # register blocks (4 x 8) filling 8 x 16 tiles; the edge tiles (37 rows, 29 columns)
    # have partial blocks and run unblocked beside the blocked ones
    "register-blocks": ("--tile", "--tile-sizes", "8,16,5"),
    # the full tiles apart (isl's isolate option), the partial ones after them
    "isolated": ("--tile", "--isolate-full-tiles", "--tile-sizes", "8,16,5"),
}


def _program(tmp_path: Path, name: str, n: int = 37, m: int = 29) -> Path:
    path = tmp_path / f"{name}.c"
    path.write_text(PROGRAM.format(N=n, M=m, body=BODIES[name]))
    return path


def _compiled(source: Path, out_dir: Path, *args: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "ppcg_py", "--target=c", "--openmp", *EVERY_LOOP, *args,
                           "--output-dir", str(out_dir), str(source)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return (out_dir / f"{source.stem}.ppcg.c").read_text()


@pytest.mark.parametrize("options", list(OPTION_SETS), ids=list(OPTION_SETS))
@pytest.mark.parametrize("name", list(BODIES))
def test_program_verifies_with_1_2_4_threads(name, options, tmp_path):
    source = _program(tmp_path, name)
    report = verify(VerifyConfig(source=source, ppcg_args=OPTION_SETS[options], target="c"), tmp_path / "work")
    assert report.ok, report.summary()
    assert set(report.mismatches) == {"1 thread", "2 threads", "4 threads"}


def test_private_scalar_is_private(tmp_path):
    text = _compiled(_program(tmp_path, "private_scalar"), tmp_path)
    assert "#pragma omp parallel for firstprivate(s)" in text


def test_local_of_the_scop_is_declared_and_private(tmp_path):
    text = _compiled(_program(tmp_path, "local_and_last_value"), tmp_path)
    assert re.search(r"^\s*double u;$", text, re.M), text
    assert "private(u)" in text
    # t's last value is read after the loop: t cannot be private, so its loop is not parallel
    loop = re.search(r"(#pragma[^\n]*\n)?[^\n]*for \(int c0 = 0; c0 < m; c0\+\+\) \{\n\s*t = ", text)
    assert loop is not None and loop.group(1) is None, text


def test_reduction_is_not_parallel_but_the_other_nest_is(tmp_path):
    text = _compiled(_program(tmp_path, "reduction_scalar"), tmp_path)
    pragmas = re.findall(r"#pragma omp parallel for.*", text)
    assert pragmas == ["#pragma omp parallel for"], text
    assert "out[1] = sum * 2.0;" in text    # the code after the SCoP is the input's


@pytest.mark.parametrize("options", [(), ("--tile",)], ids=["untiled", "tiled"])
def test_time_loop_is_one_parallel_region(options, tmp_path):
    """The serial time loop is the region; its nests are `omp for` (the private scalar's
    clause with them), its own statements run once, under `omp single`."""
    text = _compiled(_program(tmp_path, "time_loop_region"), tmp_path, *options)
    assert "omp parallel for" not in text, text
    assert re.findall(r"#pragma omp parallel\b.*", text) == ["#pragma omp parallel"], text
    assert re.search(r"#pragma omp parallel\n\s*for \(int c0 = 0; c0 <= 5; c0\+\+\) \{\n"
                     r"\s*#pragma omp single\n\s*\{\n\s*x\[c0\] = [^\n]*\n\s*s = ", text), text
    assert re.findall(r"#pragma omp for.*", text) == ["#pragma omp for",
                                                      "#pragma omp for firstprivate(t) lastprivate(t)"], text
    assert len(re.findall(r"#pragma omp single", text)) == 1, text


def test_region_leaves_control_to_every_thread():
    """Unit: a degenerate loop's constant stays outside `single` (the code after it uses
    it), a loop that holds an `omp for` is run by every thread, a plain statement once."""
    from pycparser import c_ast
    from ppcg_py.codegen.omp_region import with_parallel_regions
    from ppcg_py.codegen.printer import c_lines, declaration

    def loop(name: str, body: list) -> c_ast.For:
        i = c_ast.ID(name)
        return c_ast.For(c_ast.DeclList([declaration(name, c_ast.Constant("int", "0"))]),
                         c_ast.BinaryOp("<", i, c_ast.ID("n")), c_ast.UnaryOp("p++", i), c_ast.Compound(body))

    def write(target: str) -> c_ast.Node:
        return c_ast.Assignment("=", c_ast.ID(target), c_ast.Constant("int", "1"))

    marked = c_ast.Pragma("omp parallel for private(s)")
    inner = loop("c2", [write("a")])
    code = [write("before"), loop("c0", [write("x"), c_ast.Compound([
        declaration("c1", c_ast.Constant("int", "3"), constant=True), write("y"), marked, inner])])]
    text = "\n".join(line.strip() for line in c_lines(with_parallel_regions(code, [marked])))
    assert text == "\n".join([
        "before = 1;", "#pragma omp parallel", "for (int c0 = 0; c0 < n; c0++) {",
        "#pragma omp single", "x = 1;", "{", "const int c1 = 3;", "#pragma omp single", "y = 1;",
        "#pragma omp for private(s)", "for (int c2 = 0; c2 < n; c2++) {", "a = 1;", "}", "}", "}"]), text


def test_tiles_with_sizes(tmp_path):
    text = _compiled(_program(tmp_path, "product_and_stencil"), tmp_path, "--tile", "--tile-sizes", "8,5,3")
    assert "8 * c0" in text and "ppcg_floord" in text, text


def test_without_openmp_no_pragma(tmp_path):
    source = _program(tmp_path, "private_scalar")
    proc = subprocess.run([sys.executable, "-m", "ppcg_py", "--target=c", "--output-dir", str(tmp_path),
                           str(source)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "#pragma omp" not in (tmp_path / "private_scalar.ppcg.c").read_text()


@pytest.mark.parametrize("kernel", ["gemm", "symm", "jacobi-2d", "seidel-2d", "durbin", "covariance"])
def test_polybench_kernel_verifies(kernel, tmp_path):
    report = verify(kernel_config(kernel, dataset="MINI", ppcg_args=("--tile",), target="c"), tmp_path)
    assert report.ok, report.summary()


@pytest.mark.parametrize("kernel, array", [("gemm", "C"), ("syrk", "C"), ("trmm", "B")])
def test_register_blocks_of_the_models_sizes_verify(kernel, array, tmp_path):
    """At MEDIUM the cache model's tiles (gemm 256 x 48 x 48, 2 x 24 blocks; syrk 4 x 8;
    trmm 2 x 24, its rows' first steps apart) hold whole blocks: the blocked code runs
    and computes what gcc's build does (MINI's arrays are smaller than one tile, so
    every tile there runs unblocked)."""
    cfg = kernel_config(kernel, dataset="MEDIUM", ppcg_args=("--tile",), target="c")
    report = verify(cfg, tmp_path / "work")
    assert report.ok, report.summary()
    proc = run_ppcg(cfg, tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / f"{kernel}.ppcg.c").read_text()
    assert re.search(rf"reg_{array}\[c\d+\]\[c\d+\] = {array}\[", text), text
    if kernel == "trmm":
        assert _loops_of_whole_blocks(text, "reg_B", 2), text


def test_harness_rejects_a_wrong_output(tmp_path):
    """Negative control: shift one subscript of the generated code by one element."""
    def wrong_compiler(cfg, out_dir):
        proc = run_ppcg(cfg, out_dir)
        path = out_dir / "private_scalar.ppcg.c"
        changed, count = re.subn(r"\* y\[", "* y[1 + ", path.read_text(), count=1)
        assert count == 1
        path.write_text(changed)
        return proc

    source = _program(tmp_path, "private_scalar")
    report = verify(VerifyConfig(source=source, target="c"), tmp_path / "work", compiler=wrong_compiler)
    assert not report.ok and any(report.mismatches.values()), report.summary()


def carried_dependences(scheduled, loop):
    """The dependences a parallel loop carries, but those of its private scalars."""
    deps = scheduled.dependences
    keep = [a.name for a in scheduled.scop.arrays if a.name not in loop.private]
    relevant = (deps.of_arrays(deps.tagged_flow, keep).union(deps.of_arrays(deps.tagged_false, keep))
                .union(deps.of_arrays(deps.tagged_order, keep)).union(deps.array_false).union(deps.forced))
    key = loop.host_schedule.range_product(loop.point_schedule)
    same_execution = loop.host_schedule.apply_range(loop.host_schedule.reverse())
    inside = relevant.intersect_domain(loop.domain).intersect_range(loop.domain).intersect(same_execution)
    return inside.subtract(key.apply_range(key.reverse()))


@pytest.mark.parametrize("tile", [False, True], ids=["untiled", "tiled"])
@pytest.mark.parametrize("kernel", ["symm", "seidel-2d", "heat-3d", "durbin", "gramschmidt", "correlation"])
def test_parallel_loops_carry_only_private_scalars(kernel, tile):
    """Every dependence between two iterations of an OpenMP loop is one of a scalar that
    is private there: the guarantee that runs with 2 and 4 threads can only sample."""
    from ppcg_py.extract import extract_program
    from ppcg_py.isl_context import new_context
    from ppcg_py.options import Options
    from ppcg_py.schedule.cpu import schedule_for_cpu

    from polybench_cases import POLYBENCH, kernel_source

    source = kernel_source(kernel)
    program = extract_program(str(source), new_context(), include_dirs=(str(POLYBENCH / "utilities"),
                                                                        str(source.parent)),
                              defines=("MINI_DATASET",))
    loops = 0
    for scop in program.scops:
        scheduled = schedule_for_cpu(scop, Options(target="c", openmp=True, tile=tile))
        for loop in scheduled.parallel:
            loops += 1
            carried = carried_dependences(scheduled, loop)
            assert carried.is_empty(), (loop.name, str(carried))
    assert loops > 0


def _cpu_schedules(kernel: str, **options):
    from ppcg_py.extract import extract_program
    from ppcg_py.isl_context import new_context
    from ppcg_py.options import Options
    from ppcg_py.schedule.cpu import schedule_for_cpu

    from polybench_cases import POLYBENCH, kernel_source

    source = kernel_source(kernel)
    program = extract_program(str(source), new_context(), include_dirs=(str(POLYBENCH / "utilities"),
                                                                        str(source.parent)),
                              defines=("MINI_DATASET",))
    return [schedule_for_cpu(scop, Options(target="c", **options)) for scop in program.scops]


@pytest.mark.parametrize("kernel", ["gemm", "2mm", "syrk", "syr2k", "doitgen", "jacobi-2d", "heat-3d", "symm",
                                    "fdtd-2d", "covariance"])
def test_vector_loops_carry_no_dependence(kernel):
    """An `omp simd` loop runs its iterations together: no dependence, not even one of a
    scalar, may link two of them (the loop is a coincident member of a permutable band)."""
    found = 0
    for scheduled in _cpu_schedules(kernel, openmp=True, tile=True):
        deps = scheduled.dependences
        every = (deps.tagged_flow.union(deps.tagged_false).union(deps.tagged_order).domain_factor_domain()
                 .range_factor_domain().union(deps.array_false).union(deps.forced))
        for loop in scheduled.vector_loops:
            found += 1
            same = loop.host_schedule.apply_range(loop.host_schedule.reverse())
            inside = every.intersect_domain(loop.domain).intersect_range(loop.domain).intersect(same)
            own = loop.point_schedule.apply_range(loop.point_schedule.reverse())
            assert inside.is_subset(own), (kernel, loop.name, str(inside.subtract(own)))
    assert found > 0 or kernel in ("symm",)


def test_gemm_point_loops_put_the_parallel_unit_stride_loop_innermost(tmp_path):
    """isl's order leaves gemm's `k` reduction innermost; inside a tile `j` goes there, the
    loop along which C and B are read with stride 1 (Pluto's intra-tile order), marked
    for the vectoriser."""
    from polybench_cases import POLYBENCH, kernel_source

    source = kernel_source("gemm")
    proc = subprocess.run([sys.executable, "-m", "ppcg_py", "--target=c", "--openmp", "--tile",
                           "-I", str(POLYBENCH / "utilities"), "-I", str(source.parent), "-DMINI_DATASET",
                           "--output-dir", str(tmp_path), str(source)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "gemm.ppcg.c").read_text()
    loops = re.finditer(r"#pragma omp simd\n\s*for \(int (c\d+) = [^{]*\{(?P<body>[^{}]*(\{[^{}]*\}[^{}]*)*)\}", text)
    simd = next((loop for loop in loops if "+=" in loop.group("body")), None)   # the update's (C *= beta has its own)
    assert simd is not None, text
    j, body = simd.group(1), simd.group("body")
    assert "for (" not in body, body                         # innermost
    update = re.search(r"C\[[^]]*\]\[([^]]*)\] \+= .*B\[[^]]*\]\[([^]]*)\]", body)
    assert update is not None and update.group(1).endswith(j) and update.group(2).endswith(j), body


def _gemm(tmp_path: Path, *args: str) -> str:
    from polybench_cases import POLYBENCH, kernel_source

    source = kernel_source("gemm")
    proc = subprocess.run([sys.executable, "-m", "ppcg_py", "--target=c", "--openmp", "--tile", *args,
                           "-I", str(POLYBENCH / "utilities"), "-I", str(source.parent), "-DMINI_DATASET",
                           "--output-dir", str(tmp_path), str(source)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return (tmp_path / "gemm.ppcg.c").read_text()


def test_gemm_keeps_a_block_of_c_in_registers(tmp_path):
    """gemm's full 2 x 24 blocks of C stay in a local array across the loop over k (read
    before it, written after it), the rows unrolled; `C *= beta` runs on the block once,
    before the loop over k, not under a guard inside it."""
    text = _gemm(tmp_path)
    assert "double reg_C[2][24];" in text, text
    block = text[text.index("double reg_C[2][24];"):]
    block = block[:block.index("= reg_C[c")]
    assert re.search(r"reg_C\[c\d+\]\[c\d+\] = C\[", block), block          # the copy in
    updates = re.findall(r"reg_C\[(\d)\]\[c\d+\] \+= alpha \* A\[", block)
    assert updates == ["0", "1"], block                                         # rows unrolled
    scale = block.index("*= beta")
    assert block.index("+= alpha") > scale and "for (" not in block[block.rindex("if (", 0, scale):scale] \
        .split("{", 1)[0], block
    assert not re.search(r"if \(c\d+ == 0 && c\d+ == 0\)", block), block


def test_no_register_tiles_option(tmp_path):
    assert "reg_" not in _gemm(tmp_path, "--no-register-tiles")


def test_register_blocks_reach_the_rows_of_an_edge_tile(tmp_path):
    """37 rows in tiles of 16: the last tile's 5 rows hold two whole strips of 2 rows
    (blocked) and one row short of a block (not); 29 columns in tiles of 24: the first
    column tile is whole, the second (5 columns) is not."""
    import islpy as isl

    from ppcg_py.extract import extract_program
    from ppcg_py.isl_context import new_context, sets_of
    from ppcg_py.options import Options
    from ppcg_py.schedule.cpu import schedule_for_cpu
    BODIES["scaled_product"] = BLOCKED_BODIES["scaled_product"]
    try:
        source = _program(tmp_path, "scaled_product")
    finally:
        del BODIES["scaled_product"]
    scop, = extract_program(str(source), new_context()).scops
    scheduled = schedule_for_cpu(scop, Options(target="c", openmp=True, tile=True, tile_sizes=(16, 24, 5),
                                               sizes="{ kernel[i] -> register[2, 24] }"))
    assert [t.extents for t in scheduled.register_tiles] == [(2, 24)]
    found = []

    def blocked(node: isl.ScheduleNode) -> None:
        if node.get_type() == isl.schedule_node_type.mark and node.mark_get_id().get_name() == "register_tile0":
            found.append(node.get_domain())
        for k in range(node.n_children()):
            blocked(node.child(k))
    blocked(scheduled.final_schedule.get_root())
    domain, = found
    rows: set[int] = set()
    columns: set[int] = set()
    for part in sets_of(domain):
        for name, value in (("n", 37), ("m", 29)):
            part = part.fix_val(isl.dim_type.param, part.find_dim_by_name(isl.dim_type.param, name), isl.Val(value))
        for kept, into in ((0, rows), (1, columns)):
            line = part.project_out(isl.dim_type.set, kept + 1, part.dim(isl.dim_type.set) - kept - 1) \
                .project_out(isl.dim_type.set, 0, kept)
            line.foreach_point(lambda point, into=into: into.add(point.get_coordinate_val(isl.dim_type.set, 0)
                                                                 .to_python()))
    assert rows == set(range(36))       # rows 32..35 of the last tile too; row 36 alone is left
    assert columns == set(range(24))


def test_register_blocks_in_the_straddling_option_set(tmp_path):
    """The option set `register-blocks` makes blocks in the inner tiles (else its
    verification proves nothing), not only where the parameters make an edge tile whole."""
    text = _compiled(_program(tmp_path, "product_and_stencil"), tmp_path, *OPTION_SETS["register-blocks"])
    assert "double reg_B[4][8];" in text, text
    assert "reg_B[c6][c7] = B[8 * c0 + " in text, text


@pytest.mark.parametrize("kernel, blocks", [("gemm", [(2, 24)]), ("2mm", [(2, 24), (4, 8)]), ("syr2k", [(4, 8)]),
                                            ("covariance", [(2, 24)]), ("doitgen", [(2, 24)])])
def test_register_tiles_of_polybench(kernel, blocks):
    """The bands that get register blocks, and their shapes (MINI): 2 rows of 6 vectors
    where the columns are contiguous, 4 rows of 2 where they gather from rows (syr2k's
    `A[j][k]`) or where the wide blocks' tiles would leave an edge tile (2mm's `D`: 24
    columns, one tile of 24); covariance's band also writes
    `cov[j][i]`, which a block of rows and columns does not hold, so that statement gets
    a band of its own (epilogues.py). doitgen's blocks are those of its copy of `sum`
    per `q` (schedule/expansion.py, cpu/sinking.py)."""
    tiles = [t for s in _cpu_schedules(kernel, openmp=True, tile=True, cache_tiles=True) for t in s.register_tiles]
    assert [t.extents for t in tiles] == blocks, tiles


def test_an_access_still_at_each_time_step_leaves_fdtd_2d_untiled():
    """fdtd-2d's `ey[0][j] = _fict_[t]`: over all `t` at once `_fict_[t]` looks scattered
    along `j`; at each `t` it stays still, so no band of the sweep is worth a tile."""
    schedules = _cpu_schedules("fdtd-2d", openmp=True, tile=True, cache_tiles=True)
    assert [tuple(ks.tile for ks in s.band_sizes) for s in schedules] == [((), (), ())]


@pytest.mark.parametrize("kernel, blocks", [("gemm", [(2, 16)]), ("syr2k", [(4, 8)])])
def test_register_blocks_fit_the_tile_sizes_given(kernel, blocks):
    """With PPCG's tiles of 32, a block of 6 vectors would straddle two tiles: the
    block shrinks to whole vectors that divide the tile (2 x 4 vectors of doubles)."""
    tiles = [t for s in _cpu_schedules(kernel, openmp=True, tile=True) for t in s.register_tiles]
    assert [t.extents for t in tiles] == blocks, tiles


def test_without_openmp_the_vector_loop_is_gcc_ivdep(tmp_path):
    from polybench_cases import POLYBENCH, kernel_source

    source = kernel_source("gemm")
    proc = subprocess.run([sys.executable, "-m", "ppcg_py", "--target=c", "--tile",
                           "-I", str(POLYBENCH / "utilities"), "-I", str(source.parent), "-DMINI_DATASET",
                           "--output-dir", str(tmp_path), str(source)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "gemm.ppcg.c").read_text()
    assert "#pragma GCC ivdep" in text and "#pragma omp" not in text, text


def test_sizes_number_the_tiled_bands_not_their_point_bands(tmp_path):
    """`kernel[1]` of `--sizes` is the second band tiled; the point band of the first
    one used to be tiled again, as a band of its own, and took that number."""
    text = _compiled(_program(tmp_path, "product_and_stencil"), tmp_path, "--tile",
                     "--sizes", "{ kernel[0] -> tile[8,8,8]; kernel[1] -> tile[5,5] }")
    assert "8 * c0" in text and re.search(r"\b5 \* c\d", text), text
    assert "32 * c" not in text, text     # no band took the default size


# Accumulating bands of several shapes, for register blocks of several shapes: extents
# 37 and 29 are multiples of no block or tile size here.
BLOCKED_BODIES = {
    # gemm's shape, with the scaling statement before the loop over k
    "scaled_product": """\
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      B[i][j] *= 0.5;
      for (k = 0; k < m; k++)
        B[i][j] += A[i][k] * A[k % 29][j];
    }
#pragma endscop""",
    # a triangle (syrk's): diagonal tiles hold partial blocks
    "triangle": """\
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j <= i && j < m; j++)
      for (k = 0; k < m; k++)
        B[i][j] += A[i][k] * A[j][k];
#pragma endscop""",
    # the block read after the loop over k, by a statement of the band
    "read_after": """\
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      for (k = 0; k < 7; k++)
        B[i][j] += A[i][k] * A[i][j];
      A[i][j] = B[i][j] * 0.25;
    }
#pragma endscop""",
}


@pytest.mark.parametrize("block", ["2,3", "3,2", "4,8", "6,12", "1,4"])
@pytest.mark.parametrize("name", list(BLOCKED_BODIES))
def test_register_blocks_of_several_shapes_verify(name, block, tmp_path):
    """Each body, blocked at each shape inside 12 x 24 x 5 tiles (37 x 29 points: edge
    tiles in both blocked members), computes what gcc's build does with 1, 2 and 4
    threads (where the band gets blocks at all: read_after's statements share a band
    only where isl fuses them)."""
    BODIES[name] = BLOCKED_BODIES[name]
    try:
        source = _program(tmp_path, name)
        args = ("--tile", "--tile-sizes", "12,24,5", "--sizes", f"{{ kernel[i] -> register[{block}] }}")
        report = verify(VerifyConfig(source=source, ppcg_args=args, target="c"), tmp_path / "work")
        assert report.ok, report.summary()
        if name != "read_after":
            text = _compiled(source, tmp_path, *args)
            rows, columns = block.split(",")
            assert f"double reg_B[{rows}][{columns}];" in text, text
    finally:
        del BODIES[name]


# an array accumulated in a block and read elsewhere along the loop between
APART_BODIES = {
    # trmm's: B accumulated along k, reading the rows below it (not yet updated)
    "rows_below": """\
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      for (k = i + 1; k < n; k++)
        B[i][j] += 0.125 * (x[k] + x[i]) * B[k][j];
#pragma endscop""",
    # ... and reading the rows above it, already updated
    "rows_above": """\
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      for (k = 0; k < i; k++)
        B[i][j] += 0.125 * (x[k] + x[i]) * B[k][j];
#pragma endscop""",
    # ... and its own row, as its block has updated it so far
    "own_row": """\
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      for (k = 0; k <= i; k++)
        B[i][j] += 0.125 * (x[k] + x[i]) * B[k][j];
#pragma endscop""",
}


@pytest.mark.parametrize("name, block", [("rows_below", "double reg_B[2][24];"),
                                         ("rows_above", "double reg_B[1][24];")])
def test_a_block_beside_reads_of_other_rows_of_its_array(name, block, tmp_path):
    """trmm's `B[i][j] += A[k][i] * B[k][j]` over `k > i`: the block of `B[i][j]` stays in
    registers while `B[k][j]` is read from memory, two rows at a time, since row `i`
    reads row `i + 1` before that row's own updates. Reading the rows above (`k < i`),
    row `i + 1` needs row `i` finished: its block is one row. The model's sizes; 64 x 29."""
    BODIES[name] = APART_BODIES[name]
    try:
        source = _program(tmp_path, name, n=64)
        text = _compiled(source, tmp_path, "--tile")
        assert block in text, text
        assert re.search(r"reg_B\[0\]\[c\d+\] \+= .* \* B\[", text), text      # B[k][j] from memory
        report = verify(VerifyConfig(source=source, ppcg_args=("--tile",), target="c"), tmp_path / "work")
        assert report.ok, report.summary()
    finally:
        del BODIES[name]


def _loops_of_whole_blocks(text: str, block: str, rows: int) -> list[list[str]]:
    """The bodies of the loops (outside the column loops) that update every one of a
    block's `rows` rows with no `if` among them."""
    lines = [line.strip() for line in text.splitlines()]
    found = []
    for k, line in enumerate(lines):
        if not (line.startswith("for (int c") and line.endswith("{")):
            continue
        depth, end = 0, k
        for end in range(k, len(lines)):
            depth += lines[end].count("{") - lines[end].count("}")
            if depth == 0:
                break
        body = lines[k + 1:end]
        updated = {int(m.group(1)) for b in body if (m := re.match(rf"{block}\[(\d+)\]\[c\d+\] \+=", b))}
        if updated == set(range(rows)) and not any(b.startswith("if (") for b in body):
            found.append(body)
    return found


def _apart_compiled_and_verified(tmp_path: Path, name: str, *sizes: str):
    """APART_BODIES[name] at 64 x 29, tiled (with `sizes`): its C output and verification."""
    BODIES[name] = APART_BODIES[name]
    try:
        source = _program(tmp_path, name, n=64)
        text = _compiled(source, tmp_path, "--tile", *sizes)
        report = verify(VerifyConfig(source=source, ppcg_args=("--tile", *sizes), target="c"), tmp_path / "work")
    finally:
        del BODIES[name]
    return text, report


@pytest.mark.parametrize("sizes", [(), ("--sizes", "{ kernel[0] -> register[4, 8] }")])
def test_rows_of_a_block_run_unguarded_once_all_have_started(tmp_path, sizes):
    """rows_below's block rows start at different steps of `k` (`k > i`): the steps where
    every row runs are isolated, so that no row's update sits under a guard in the loop
    over `k` (gcc kept such a row's vector on the stack: trmm 1.6x slower); only the
    steps where the rows start keep them. 64 x 29, the model's 2 x 24 blocks and 4 x 8
    ones; the code computes what gcc's build does."""
    text, report = _apart_compiled_and_verified(tmp_path, "rows_below", *sizes)
    rows = 4 if sizes else 2
    assert f"double reg_B[{rows}][" in text, text
    assert _loops_of_whole_blocks(text, "reg_B", rows), text
    assert report.ok, report.summary()


@pytest.mark.parametrize("sizes", [(), ("--sizes", "{ kernel[0] -> register[2, 24] }")])
def test_no_block_holds_a_row_read_from_memory_after_its_updates(tmp_path, sizes):
    """own_row reads `B[i][j]` through `B[k][j]` at `k = i`, after the loop over `k` has
    updated it: in a block, memory would still hold its first value. It gets no block,
    of one row or two, and computes what gcc computes."""
    text, report = _apart_compiled_and_verified(tmp_path, "own_row", *sizes)
    assert "reg_B" not in text, text
    assert report.ok, report.summary()


def test_register_block_that_straddles_tiles_is_refused_with_a_warning(tmp_path):
    """A block of 2 x 3 in 12 x 16 tiles would straddle two tiles along the columns:
    the band keeps its point loops, and the user hears why."""
    BODIES["scaled_product"] = BLOCKED_BODIES["scaled_product"]
    try:
        source = _program(tmp_path, "scaled_product")
        proc = subprocess.run([sys.executable, "-m", "ppcg_py", "--target=c", "--openmp", "--tile", "--tile-sizes",
                               "12,16,5", "--sizes", "{ kernel[i] -> register[2, 3] }", "--output-dir", str(tmp_path),
                               str(source)], capture_output=True, text=True, check=False)
    finally:
        del BODIES["scaled_product"]
    assert proc.returncode == 0, proc.stderr
    assert "warning: --sizes: kernel 0 gets no register[2, 3] blocks" in proc.stderr
    assert "the tile sizes (12, 16, 5) along its rows and columns are not multiples of the block's" in proc.stderr
    assert proc.stderr.count("warning") == 1, proc.stderr
    assert "reg_B" not in (tmp_path / "scaled_product.ppcg.c").read_text()


@pytest.mark.parametrize("order", ["0, 1, 2", "2, 0, 1", "1, 2, 0"])
@pytest.mark.parametrize("kernel", ["gemm", "syrk"])
def test_point_loop_orders_given_verify(kernel, order, tmp_path):
    """`order[...]` of `--sizes` puts the point loops in that order (the autotuner's
    variants); the innermost may then be the reduction loop, unmarked for the vectoriser."""
    sizes = f"{{ kernel[0] -> tile[16, 8, 12]; kernel[0] -> order[{order}] }}"
    cfg = kernel_config(kernel, dataset="SMALL", ppcg_args=("--tile", "--sizes", sizes, "--dump-sizes"), target="c")
    report = verify(cfg, tmp_path / "work")
    assert report.ok, report.summary()
    proc = run_ppcg(cfg, tmp_path)
    assert proc.returncode == 0 and f"kernel[0] -> order[{order}]" in proc.stdout, proc.stderr


def test_a_point_loop_order_that_is_no_permutation_is_refused(tmp_path):
    cfg = kernel_config("gemm", dataset="SMALL", target="c",
                        ppcg_args=("--tile", "--sizes", "{ kernel[0] -> order[0, 0, 1] }"))
    proc = run_ppcg(cfg, tmp_path)
    assert proc.returncode != 0 and "order[2, 1, 0]" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
