"""`--sizes-file` and `--autotune` (C target, and CUDA where a GPU is: here through the
CPU emulation): the file is `--sizes` with comments, its text and `--dump-sizes` feed
each other, and the tuner writes a file that the final output uses."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ppcg_py import autotune
from ppcg_py.autotune import band_variants, register_variants
from ppcg_py.cli import main
from ppcg_py.schedule.sizes import sizes_file_text

PRODUCT = """\
#include <stdio.h>
#define N 48

static void product(int n, double A[N][N], double B[N][N], double C[N][N], double D[N][N])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      D[i][j] = C[j][i] + 1.0;
#pragma endscop
}

int main(void)
{
  static double A[N][N], B[N][N], C[N][N], D[N][N];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = (i * j % 7) / 7.0;
      B[i][j] = (i + 2 * j) % 5 / 5.0;
    }
  product(N, A, B, C, D);
  double sum = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      sum += D[i][j] * (i + 1) - C[i][j] * (j + 1);
  printf("%.10g\\n", sum);
  return 0;
}
"""
C_TILED = ("--target=c", "--openmp", "--tile")


@pytest.fixture
def program(tmp_path: Path) -> Path:
    source = tmp_path / "product.c"
    source.write_text(PRODUCT)
    return source


def _compile(source: Path, out: Path, *args: str, capsys) -> tuple[int, str, str, str]:
    """(exit status, the generated C text, stdout, stderr) of ppcg-py run in this process."""
    out.mkdir(exist_ok=True)
    capsys.readouterr()
    status = main([*C_TILED, "--output-dir", str(out), *args, str(source)])
    captured = capsys.readouterr()
    generated = out / f"{source.stem}.ppcg.c"
    return status, generated.read_text() if generated.exists() else "", captured.out, captured.err


def test_dump_sizes_names_the_tiled_bands_of_every_scop(program, tmp_path, capsys):
    """The C target numbers its tiled bands over the file, as CUDA numbers its kernels."""
    status, _, out, err = _compile(program, tmp_path / "out", "-S", "32", "--dump-sizes", capsys=capsys)
    assert status == 0, err
    assert out.strip() == ("{ kernel[0] -> tile[32, 32, 32]; kernel[0] -> register[2, 16]; kernel[0] -> order[0, 2, 1]; "
                           "kernel[1] -> tile[32, 32]; kernel[1] -> order[0, 1] }")
    status, _, out, err = _compile(program, tmp_path / "out", "--sizes", "{ kernel[1] -> tile[8, 4] }",
                                   "--dump-sizes", capsys=capsys)
    assert status == 0, err
    assert out.strip().endswith("kernel[1] -> tile[8, 4]; kernel[1] -> order[0, 1] }"), out   # the second SCoP's


def test_sizes_file_round_trips_with_dump_sizes(program, tmp_path, capsys):
    wanted = ("{ kernel[0] -> tile[8, 16, 4]; kernel[0] -> register[2, 16]; kernel[0] -> order[0, 2, 1]; "
              "kernel[1] -> tile[5, 12]; kernel[1] -> order[1, 0] }")
    status, by_option, dumped, err = _compile(program, tmp_path / "a", "--sizes", wanted, "--dump-sizes",
                                              capsys=capsys)
    assert status == 0, err
    assert dumped.strip() == wanted
    sizes = tmp_path / "product.sizes"
    sizes.write_text("# sizes for product.c\n" + dumped.replace("; ", ";   # a band\n  ") + "# the end\n")
    status, by_file, dumped_again, err = _compile(program, tmp_path / "b", "--sizes-file", str(sizes),
                                                  "--dump-sizes", capsys=capsys)
    assert status == 0, err
    assert dumped_again == dumped and by_file == by_option
    assert "8 * c0" in by_file or "c0 += 8" in by_file, by_file
    assert "double reg_C[2][16];" in by_file, by_file


def test_sizes_file_text_drops_comments_and_newlines():
    assert sizes_file_text("# a\n{ kernel[0] -> tile[1,2]; # b\n kernel[1] -> tile[3] }\n") == \
        "{ kernel[0] -> tile[1,2]; kernel[1] -> tile[3] }"


def test_sizes_with_sizes_file_is_a_usage_error(program, tmp_path, capsys):
    sizes = tmp_path / "s.sizes"
    sizes.write_text("{ }")
    with pytest.raises(SystemExit) as exit_:
        main([*C_TILED, "--sizes", "{ }", "--sizes-file", str(sizes), str(program)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("ppcg-py: error: --sizes and --sizes-file"), err


@pytest.mark.parametrize("contents, message", [(None, "cannot read it"), ("kernel[0] -> ", "not a --sizes map")])
def test_bad_sizes_file_is_an_error_at_the_file(program, tmp_path, capsys, contents, message):
    sizes = tmp_path / "bad.sizes"
    if contents is not None:
        sizes.write_text(contents)
    status, _, _, err = _compile(program, tmp_path / "out", "--sizes-file", str(sizes), capsys=capsys)
    assert status == 1 and err.startswith(f"{sizes}: error: ") and message in err, err


@pytest.mark.parametrize("args, message", [
    (("--target=cuda",), "has none"),               # this test makes the machine have no GPU
    (("--target=opencl",), "the C target and CUDA are tuned"),
    (("--target=c",), "needs --tile"),
])
def test_autotune_refuses_what_it_cannot_time(program, monkeypatch, capsys, args, message):
    monkeypatch.setattr(autotune, "gpu_present", lambda: False)
    with pytest.raises(SystemExit) as exit_:
        main([*args, "--autotune", str(program)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.startswith("ppcg-py: error: --autotune") and message in err, err


def test_autotune_options_need_autotune(program, capsys):
    with pytest.raises(SystemExit):
        main([*C_TILED, "--autotune-budget", "3", str(program)])
    assert "--autotune-budget needs --autotune" in capsys.readouterr().err


def test_register_variants_trade_rows_for_columns_and_try_none():
    assert register_variants((4, 8)) == [(2, 16), (8, 4), (1, 1)]
    assert register_variants((1, 16)) == [(2, 8), (1, 1)]
    assert register_variants((1, 1)) == [] and register_variants(()) == []


def test_new_tile_sizes_leave_the_register_block_to_the_compiler():
    """A block must divide its tile: other sizes ask for the compiler's block for them
    (no `register[]`), unless the band had none or the block is named."""
    tiles = ((0, (32, 48, 64), (2, 24), (0, 2, 1), False), (1, (32, 32), (), (0, 1), True))
    assert autotune._with_band(tiles, 0, (32, 64, 64)) == ((0, (32, 64, 64), (), (0, 2, 1), False), tiles[1])
    assert autotune._with_band(tiles, 0, (32, 48, 64), (4, 12))[0] == (0, (32, 48, 64), (4, 12), (0, 2, 1), False)
    assert autotune._with_band(tiles, 1, (16, 32)) == (tiles[0], (1, (16, 32), (), (0, 1), True))
    # another order: the compiler chooses the block for it; the isolation alone keeps the block
    assert autotune._with_band(tiles, 0, (32, 48, 64), order=(2, 0, 1))[0] == \
        (0, (32, 48, 64), (), (2, 0, 1), False)
    assert autotune._with_band(tiles, 0, (32, 48, 64), isolated=True)[0] == (0, (32, 48, 64), (2, 24), (0, 2, 1), True)
    off = ((0, (32, 48, 64), (1, 1), (0, 2, 1), False),)
    assert autotune._with_band(off, 0, (64, 64, 64)) == ((0, (64, 64, 64), (1, 1), (0, 2, 1), False),)


def test_sizes_text_names_isolated_bands_and_keeps_whole_ones_whole():
    tiles = ((0, (), (), (1, 0), False), (1, (32, 48), (), (0, 1), True))
    assert autotune.sizes_text(tiles) == ("{ kernel[0] -> tile[]; kernel[0] -> order[1, 0]; kernel[1] -> tile[32, 48]; "
                                          "kernel[1] -> order[0, 1]; kernel[1] -> isolate[1] }")


def test_order_variants_try_every_other_order_of_a_small_band():
    assert autotune.order_variants((0, 2, 1)) == [(0, 1, 2), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    assert autotune.order_variants((1, 0)) == [(0, 1)]
    assert autotune.order_variants((0,)) == [] and autotune.order_variants(()) == []
    # four members: each other member moved innermost
    assert autotune.order_variants((0, 1, 3, 2)) == [(1, 3, 2, 0), (0, 3, 2, 1), (0, 1, 2, 3)]


def test_band_variants_come_nearest_first():
    pairs = band_variants((32, 32), (8, 32, 128))
    assert pairs[0] == (32, 32) and set(pairs[-1]) <= {8, 128} and len(pairs) == 9
    # a band of three members: one member at a time
    assert band_variants((32, 32, 32), (16, 32, 64), member=1) == [(32, 32, 32), (32, 16, 32), (32, 64, 32)]
    # a member's own half and double join the candidates: whole blocks of 24 columns
    assert [shape[1] for shape in band_variants((256, 48, 48), (32, 64), member=1)] == [64, 32, 24, 96]


def test_a_variant_that_prints_something_else_is_discarded():
    reference = autotune._Reference(None, autotune._output_text(_done("12.5\n"), False), (0.0, 0.0))
    assert reference.differences(_done("12.5\n"), False) is None
    assert reference.differences(_done("12.75\n"), False) == "its output differs"
    dumped = autotune._Reference({"C": [1.0, 2.0]}, None, (1e-9, 1e-9))
    dump = "==BEGIN DUMP_ARRAYS==\nbegin dump: C\n1 %s\nend   dump: C\n==END   DUMP_ARRAYS==\n"
    assert dumped.differences(_done("", dump % "2"), False) is None
    assert "C[1]" in dumped.differences(_done("", dump % "2.5"), False)


def test_polybench_time_is_not_part_of_the_output():
    assert autotune._output_text(_done("0.123456\n"), True) == autotune._output_text(_done("0.5\n"), True)
    assert autotune.polybench_time("x\n0.25\n") == 0.25


def _done(stdout: str, stderr: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.CompletedProcess(["prog"], 0, stdout, stderr)


def test_autotune_writes_a_sizes_file_the_output_uses(program, tmp_path, capsys):
    sizes = tmp_path / "tuned" / "product.sizes"
    status, tuned, _, err = _compile(program, tmp_path / "out", "-S", "32", "--autotune", "--autotune-budget", "8",
                                     "--autotune-candidates", "16,32", "--autotune-out", str(sizes),
                                     capsys=capsys)
    assert status == 0, err
    progress = [line for line in err.splitlines() if line.startswith("ppcg-py: autotune: [")]
    assert len(progress) >= 2, err        # the first build and at least one variant
    assert progress[0].startswith("ppcg-py: autotune: [1] { kernel[0] -> tile[32, 32, 32]; "
                                  "kernel[0] -> register[2, 16]; kernel[0] -> order[0, 2, 1]; "
                                  "kernel[1] -> tile[32, 32]; kernel[1] -> order[0, 1] }: "), err
    assert all(" s" in line and "; best " in line for line in progress), err
    text = sizes.read_text()
    assert text.startswith("# ppcg-py --autotune for product.c"), text
    # the file parses, and a build from it is the tuned output
    status, rebuilt, dumped, err = _compile(program, tmp_path / "again", "--sizes-file", str(sizes),
                                            "--dump-sizes", capsys=capsys)
    assert status == 0, err
    assert rebuilt == tuned
    assert dumped.strip() == sizes_file_text(text)


POLYBENCH = Path(__file__).resolve().parent.parent / "polybench"


def test_autotune_checks_a_polybench_program_on_a_dump_build(tmp_path, capsys):
    """-DPOLYBENCH_TIME: the time is PolyBench's, and the arrays come from a build of its own."""
    gemm = POLYBENCH / "linear-algebra" / "blas" / "gemm"
    status, tuned, _, err = _compile(
        gemm / "gemm.c", tmp_path / "out", "-I", str(POLYBENCH / "utilities"), "-I", str(gemm), "-DMINI_DATASET",
        "-DPOLYBENCH_TIME", "--autotune", "--autotune-budget", "2", "--autotune-candidates", "8,32",
        "--autotune-cc-args", str(POLYBENCH / "utilities" / "polybench.c"), capsys=capsys)
    assert status == 0, err
    assert "(PolyBench's printed time)" in err and "differs" not in err and "failed" not in err, err
    assert (tmp_path / "out" / "gemm.sizes").read_text().count("PolyBench's printed time") == 1


def test_autotune_discards_a_variant_that_computes_something_else(program, tmp_path, monkeypatch, capsys):
    """Every variant but the first is made wrong here: none may win."""
    compile_ = autotune._Workbench.compile

    def wrong(self, tiles):
        files, used = compile_(self, tiles)
        return (files if tiles is None else {name: text.replace("+=", "-=") for name, text in files.items()}), used

    monkeypatch.setattr(autotune._Workbench, "compile", wrong)
    status, _, _, err = _compile(program, tmp_path / "out", "-S", "32", "--autotune", "--autotune-budget", "2",
                                 "--autotune-candidates", "16,32", capsys=capsys)
    assert status == 0, err
    assert "(discarded, differs from the first build: its output differs)" in err, err
    assert "kernel[0] -> tile[32, 32, 32]; kernel[0] -> register[2, 16]; kernel[0] -> order[0, 2, 1];\n  " \
        "kernel[1] -> tile[32, 32]; kernel[1] -> order[0, 1] }" in \
        (tmp_path / "out" / "product.sizes").read_text()


def _emulated_build(cu_files, exe, flags):
    """The CUDA search's builds, here: the CPU emulation of CUDA (its events time the kernels)."""
    from ppcg_py.verify.emulate import build_emulated
    includes = [f[2:] for f in flags if f.startswith("-I")]
    defines = [f[2:] for f in flags if f.startswith("-D")]
    build_emulated(cu_files, exe, include_dirs=includes, defines=defines)


def test_the_cuda_search_times_kernels_and_checks_each_variant(program, tmp_path):
    """Where a GPU is present the same search runs over the kernels' tile sizes, each
    variant timed by its --timing lines and checked against the first build's output;
    here the emulation stands in for nvcc and the GPU."""
    from ppcg_py.options import Options
    options = Options(target="cuda", output_dir=str(tmp_path / "out"))
    settings = autotune.TuneSettings(budget=20, candidates=(8, 16, 32), runs=1, cuda_build=_emulated_build)
    lines: list[str] = []
    result = autotune.tune(program, options, settings, lines.append)
    assert result.cuda and result.timer == "the kernels' --timing times"
    assert result.start.seconds is not None and result.start.tiles, lines
    assert len(result.tried) > 1, lines
    assert all(t.tiles[0][2:] == ((), (), False) for t in result.tried)     # tile sizes alone vary
    assert not any("differs" in t.note for t in result.tried), [t.note for t in result.tried]
    text = autotune.sizes_file_contents(program, result, settings)
    assert "built with nvcc -O3" in text and "kernel[0] -> tile[" in text, text


def test_a_cuda_variant_that_computes_otherwise_is_discarded(program, tmp_path, monkeypatch):
    """A variant whose kernels compute another result (simulated by changing the
    program's output text) loses, whatever its time."""
    from ppcg_py.options import Options
    calls = {"n": 0}

    def build(cu_files, exe, flags):
        calls["n"] += 1
        if calls["n"] > 1:    # every variant after the first prints another sum
            host = next(f for f in cu_files if f.name.endswith("_host.cu"))
            host.write_text(host.read_text().replace('printf("%.10g\\n", sum);', 'printf("%.10g\\n", sum + 1);'))
        _emulated_build(cu_files, exe, flags)

    options = Options(target="cuda", output_dir=str(tmp_path / "out"))
    settings = autotune.TuneSettings(budget=8, candidates=(8, 16), runs=1, cuda_build=build)
    result = autotune.tune(program, options, settings, lambda line: None)
    assert result.best.tiles == result.start.tiles
    assert any("differs from the first build" in t.note for t in result.tried), [t.note for t in result.tried]
