"""benchmarks/cpu.py: one kernel at MINI with gcc, ppcg-py at 1 and 2 threads and tools given as
templates (one honest, one computing in float so that its results differ, one not installed),
checked through the table and results.json; the template parsing on its own."""
from __future__ import annotations

import importlib.util
import io
import json
import shutil
import sys
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "cpu.py"
_SPEC = importlib.util.spec_from_file_location("cpu_benchmark", _PATH)
cpu = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = cpu     # dataclasses look their module up by name
_SPEC.loader.exec_module(cpu)

O2 = "o2=gcc -O2 {cflags} {src} -o {exe} {libs}"
FLOAT = "float=gcc -O2 -DDATA_TYPE_IS_FLOAT {cflags} {src} -o{exe} {libs}"   # -o{exe}: inside a word
MISSING = "nope=no-such-compiler-here -fopenmp {cflags} {src} -o {exe}"


@pytest.fixture(scope="module")
def gemm_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("cpu")
    stream = io.StringIO()
    status = cpu.main(["--kernels", "gemm", "--dataset", "MINI", "--repeat", "1", "--threads", "1,2",
                       "--tool", O2, "--tool", FLOAT, "--tool", MISSING, "--no-plot", "--out", str(out)],
                      stream=stream)
    return status, stream.getvalue(), out


def test_table_has_every_variant_with_times_and_speedups(gemm_run):
    status, printed, out = gemm_run
    table = (out / "table.md").read_text()
    assert printed.strip() == table.strip()
    assert "| kernel | gcc | ppcg-py 1t | ppcg-py 2t | o2 | float |" in table
    assert "| kernel | ppcg-py 1t | ppcg-py 2t | o2 | float |" in table   # the speedup table
    rows = [line for line in table.splitlines() if line.startswith("| gemm |")]
    assert [len(r.split("|")) - 2 for r in rows] == [6, 5]   # kernel + 5 times; kernel + 4 speedups
    assert sum(line.startswith("| geomean |") for line in table.splitlines()) == 2
    assert "skipped: nope: no-such-compiler-here not found" in table
    assert "python benchmarks/cpu.py --kernels gemm" in table and "cores" in table
    # the float build's results differ from gcc's double ones: marked, and the run fails
    assert "✗" in rows[0] and "gemm, float: differs" in table
    assert status == 1


def test_json_holds_times_statuses_and_speedups(gemm_run):
    _status, _printed, out = gemm_run
    data = json.loads((out / "results.json").read_text())
    assert data["dataset"] == "MINI" and data["check_dataset"] == "MINI" and data["baseline"] == "gcc"
    assert [v["label"] for v in data["variants"]] == ["gcc", "ppcg-py 1t", "ppcg-py 2t", "o2", "float"]
    assert data["skipped"] == {"nope": "no-such-compiler-here not found"}
    (gemm,) = data["kernels"]
    results = gemm["results"]
    for label in ("gcc", "ppcg-py 1t", "ppcg-py 2t", "o2"):
        assert results[label]["status"] == "ok", results[label]
        assert len(results[label]["times_s"]) == 1 and results[label]["median_s"] > 0
    assert results["float"]["status"] == "differs" and "MINI" in results["float"]["error"]
    assert results["ppcg-py 1t"]["speedup"] == pytest.approx(
        results["gcc"]["median_s"] / results["ppcg-py 1t"]["median_s"])
    assert data["geomean"]["float"]["speedup"] is None   # a wrong result is no speedup
    assert gemm["ppcg_compile_s"] > 0
    built = (out / "work" / "gemm" / "o2-time.cmd").read_text()
    assert built.startswith("gcc -O2 -I") and "-DMINI_DATASET -DPOLYBENCH_TIME" in built
    assert "gemm.c" in built and "polybench.c" in built and built.rstrip().endswith("-lm")


def test_template_placeholders_expand_to_arguments():
    values = {"src": ["a.c", "polybench.c"], "cflags": ["-Ix", "-DY"], "exe": ["prog"], "libs": ["-lm"]}
    argv = cpu.expand_template("cc -O3 {cflags} {src} -o{exe} {libs}", values)
    assert argv == ["cc", "-O3", "-Ix", "-DY", "a.c", "polybench.c", "-oprog", "-lm"]


def test_tools_parse_and_bad_templates_are_refused():
    polly = cpu.parse_tool("polly")
    assert polly.executable == "clang-14" and polly.parallel and "-polly" in polly.template
    o2 = cpu.parse_tool(O2)
    assert o2.name == "o2" and not o2.parallel
    assert [v.label for v in cpu.make_variants([o2, polly], [1, 2])] == ["o2", "polly 1t", "polly 2t"]
    for bad in ("unknown", "x=cc {source} -o {exe}", "x=cc {src}", "gcc=gcc {src} -o {exe}", "x={src} -o {exe}"):
        with pytest.raises(cpu.TemplateError):
            cpu.parse_tool(bad)


def test_bad_usage_exits_2(tmp_path, capsys):
    assert cpu.main(["--kernels", "nosuch", "--out", str(tmp_path)]) == 2
    assert cpu.main(["--kernels", "gemm", "--tool", "x=cc {srcs}", "--out", str(tmp_path)]) == 2
    assert "unknown placeholder" in capsys.readouterr().err


def test_plot_has_a_bar_group_per_kernel_when_matplotlib_is_there(tmp_path):
    pytest.importorskip("matplotlib")
    gcc, ppcg = cpu.Compiler("gcc", cpu.BASELINE_TEMPLATE), cpu.Compiler("ppcg-py", cpu.PPCG_TEMPLATE, True)
    plan = cpu.Plan(tuple(cpu.make_variants([gcc, ppcg], [1, 2])), "MINI", "MINI", 1, (), (), False, 10, 10)
    outcomes = [cpu.KernelOutcome(name, "blas", {
        "gcc": cpu.Cell(cpu.OK, "", [1.0]), "ppcg-py 1t": cpu.Cell(cpu.OK, "", [0.5]),
        "ppcg-py 2t": cpu.Cell(cpu.FAILED, "build", [])}) for name in ("gemm", "syrk")]
    assert cpu.plot_speedups(outcomes, plan, tmp_path / "speedup.png", "t") == "speedup.png"
    assert (tmp_path / "speedup.png").stat().st_size > 1000


def test_without_matplotlib_the_plot_is_skipped_with_a_note(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)   # makes `import matplotlib` fail
    gcc = cpu.Compiler("gcc", cpu.BASELINE_TEMPLATE)
    plan = cpu.Plan((cpu.Variant(gcc, None),), "MINI", None, 1, (), (), False, 10, 10)
    note = cpu.plot_speedups([], plan, tmp_path / "speedup.png", "t")
    assert note.startswith("skipped: matplotlib is not installed") and not (tmp_path / "speedup.png").exists()


def _openblas_gemm():
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "openblas_gemm.py"
    spec = importlib.util.spec_from_file_location("openblas_gemm", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_openblas_gemm_replaces_the_scop_by_one_dgemm_call():
    text = _openblas_gemm().cblas_source()
    assert text.startswith("#include <cblas.h>") and "cblas_dgemm(CblasRowMajor" in text
    assert "#pragma scop" not in text and "C[i][j] +=" not in text


@pytest.mark.skipif(not Path("/usr/include/x86_64-linux-gnu/cblas.h").exists() and not Path("/usr/include/cblas.h")
                    .exists(), reason="OpenBLAS is not installed (apt-get install libopenblas-dev)")
def test_openblas_gemm_checks_and_times_both(capsys):
    assert _openblas_gemm().main(["--dataset", "MINI", "--repeat", "1"]) == 0
    assert "of OpenBLAS's speed (results equal at SMALL)" in capsys.readouterr().out


def test_a_prebuilt_folder_is_a_tool(tmp_path):
    """Another tool's outputs made beforehand (here: gemm's own source as its 'output'):
    a column per thread count, checked and timed; a kernel it has no output for fails."""
    folder = tmp_path / "other"
    (folder / "gemm").mkdir(parents=True)
    shutil.copy(Path(__file__).resolve().parent.parent / "polybench/linear-algebra/blas/gemm/gemm.c", folder / "gemm" / "gemm.other.c")
    out = tmp_path / "out"
    stream = io.StringIO()
    status = cpu.main(["--kernels", "gemm,atax", "--dataset", "MINI", "--repeat", "1", "--threads", "1",
                       "--prebuilt", f"other={folder}", "--no-plot", "--out", str(out)], stream=stream)
    results = json.loads((out / "results.json").read_text())
    cells = {k["name"]: k["results"] for k in results["kernels"]}
    assert cells["gemm"]["other 1t"]["status"] == "ok", cells["gemm"]
    assert cells["atax"]["other 1t"]["status"] == "failed" and "no single .c file" in cells["atax"]["other 1t"]["error"]
    assert status == 1     # a failed cell


def test_a_prebuilt_tool_needs_a_folder(tmp_path):
    assert cpu.main(["--kernels", "gemm", "--prebuilt", f"x={tmp_path / 'none'}", "--out", str(tmp_path)]) == 2
