"""python -m polybench end to end, in the CPU emulation at MINI (a few seconds a kernel).

The script is run in-process (main(argv)) except for one check of the module entry.
"""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

import pytest
from pbscript_support import HAVE_MATPLOTLIB, ROOT, plot_args

from polybench.machine import Machine
from polybench.pipeline import KernelResult, first_error_line, parse_time
from polybench.report import (
    BaselineError,
    read_baseline,
    summary_line,
    write_csv,
    write_markdown,
)
from polybench.run import main
from polybench.suite import SelectionError, discover, project_suite, select

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _rows(path: Path) -> dict[str, dict[str, str]]:
    with open(path, newline="") as handle:
        return {row["kernel"]: row for row in csv.DictReader(handle)}


def _run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    status = main(argv, stream=out)
    return status, out.getvalue()


@pytest.fixture(scope="module")
def two_kernels(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, Path]:
    """jacobi-1d and durbin at MINI, emulation only, with a baseline CSV."""
    out = tmp_path_factory.mktemp("two-kernels")
    baseline = out / "ppcg.csv"
    baseline.write_text("kernel,time_s\njacobi-1d,0.5\ndurbin,\n")
    argv = ["--kernels", "jacobi-1d,durbin", "--dataset", "MINI", "--build", "none"]
    argv += ["--repeat", "2", "--out", str(out), "--baseline", str(baseline), *plot_args()]
    status, printed = _run(argv)
    return status, printed, out


def test_two_kernels_pass_and_write_the_table(two_kernels: tuple[int, str, Path]) -> None:
    status, printed, out = two_kernels
    assert status == 0, printed
    rows = _rows(out / "results.csv")
    assert list(rows) == ["durbin", "jacobi-1d"]  # the suite's order
    for row in rows.values():
        assert row["status"] == "PASS", row
        assert row["dataset"] == "MINI" and row["mode"] == "emulation"
        assert float(row["compile_s"]) > 0 and float(row["emu_build_s"]) > 0
        assert float(row["gen_time_s"]) >= 0 and float(row["ref_time_s"]) >= 0
        assert int(row["kernels"]) >= 1 and row["error"] == ""
    markdown = (out / "results.md").read_text()
    assert "| kernel | category | status |" in markdown
    assert "CPU emulation" in markdown and "not GPU times" in markdown
    assert "--kernels jacobi-1d,durbin" in markdown  # the exact command line
    assert "2 passed, 0 failed" in markdown
    assert "[1/2] durbin: compile" in printed and "verify PASS (forward, reverse)" in printed
    assert printed.rstrip().splitlines()[-1] == "2 passed, 0 failed"


@pytest.mark.skipif(not HAVE_MATPLOTLIB, reason="matplotlib is not installed")
def test_two_kernels_plot(two_kernels: tuple[int, str, Path]) -> None:
    out = two_kernels[2]
    assert (out / "speedup.png").read_bytes().startswith(PNG_SIGNATURE)
    assert "![speedup per kernel](speedup.png)" in (out / "results.md").read_text()


def test_baseline_adds_a_column(two_kernels: tuple[int, str, Path]) -> None:
    out = two_kernels[2]
    rows = _rows(out / "results.csv")
    jacobi = rows["jacobi-1d"]
    assert float(jacobi["baseline_time_s"]) == 0.5
    # A time gives a speedup over our own reference's time.
    assert float(jacobi["baseline_speedup"]) == pytest.approx(
        float(jacobi["ref_time_s"]) / 0.5, rel=1e-3
    )
    assert rows["durbin"]["baseline_speedup"] == ""  # no time given for it
    assert "| ppcg speedup |" in (out / "results.md").read_text()


def _result(name: str, status: str = "PASS", **fields: object) -> KernelResult:
    result = KernelResult(name, "stencils", "MINI", "emulation", "none", status=status)
    for key, value in fields.items():
        setattr(result, key, value)
    return result


def test_no_baseline_no_column(tmp_path: Path) -> None:
    results = [_result("a", ref_time_s=2.0, gen_time_s=1.0), _result("b", "MISMATCH", error="x")]
    write_csv(results, tmp_path / "r.csv")
    header = (tmp_path / "r.csv").read_text().splitlines()[0]
    assert "baseline" not in header and header.endswith(",error")
    assert _rows(tmp_path / "r.csv")["a"]["speedup"] == "2"
    machine = Machine("Linux x", "cpu", 2, None, "0.1.0")
    write_markdown(
        results, tmp_path / "r.md", machine=machine, date="d", command="c", dataset="MINI",
        build="none", repeat=1,
    )  # fmt: skip
    text = (tmp_path / "r.md").read_text()
    assert "baseline" not in text and "**MISMATCH**" in text
    assert summary_line(results) == "1 passed, 1 failed"


def test_read_baseline(tmp_path: Path) -> None:
    speedups = tmp_path / "s.csv"
    speedups.write_text("kernel,speedup\ngemm,12.5\nlu,n/a\n")
    assert read_baseline(speedups)["gemm"].speedup == 12.5
    assert read_baseline(speedups)["lu"].speedup is None
    bad = tmp_path / "bad.csv"
    bad.write_text("name,seconds\ngemm,1\n")
    with pytest.raises(BaselineError, match="kernel"):
        read_baseline(bad)
    bad.write_text("kernel,time_s\ngemm,fast\n")
    with pytest.raises(BaselineError, match="fast"):
        read_baseline(bad)


def test_official_layout_and_a_failing_kernel(fake_root: Path, tmp_path: Path) -> None:
    """--polybench-root walks the tree; a kernel ppcg-py rejects is a failed row, the
    others still run, and the exit status is 1."""
    argv = ["--polybench-root", str(fake_root), "--build", "none", "--repeat", "1"]
    status, printed = _run([*argv, "--no-plot", "--out", str(tmp_path)])
    assert status == 1, printed
    rows = _rows(tmp_path / "results.csv")
    assert set(rows) == {"durbin", "jacobi-1d", "broken-1d"}
    assert rows["jacobi-1d"]["status"] == "PASS" and rows["durbin"]["status"] == "PASS"
    assert rows["durbin"]["category"] == "linear-algebra/solvers"
    broken = rows["broken-1d"]
    assert broken["status"] == "COMPILE_ERROR"
    assert broken["error"].startswith(str(fake_root / "stencils" / "broken-1d" / "broken-1d.c"))
    assert "error:" in broken["error"] and "return" in broken["error"]
    assert printed.rstrip().splitlines()[-1] == "2 passed, 1 failed"


def test_bogus_ppcg_arg_fails_every_kernel_and_goes_on(tmp_path: Path) -> None:
    argv = ["--kernels", "jacobi-1d,trisolv", "--build", "none", "--no-plot"]
    status, printed = _run([*argv, "--ppcg-arg=--tile-size=banana", "--out", str(tmp_path)])
    assert status == 1
    rows = _rows(tmp_path / "results.csv")
    assert [r["status"] for r in rows.values()] == ["COMPILE_ERROR", "COMPILE_ERROR"]
    assert all("--tile-size" in r["error"] and "banana" in r["error"] for r in rows.values())
    assert "0 passed, 2 failed" in printed


def test_no_verify_times_only(tmp_path: Path) -> None:
    argv = ["--kernels", "jacobi-1d", "--build", "none", "--repeat", "1", "--no-verify"]
    status, printed = _run([*argv, "--no-plot", "--out", str(tmp_path)])
    assert status == 0, printed
    (row,) = _rows(tmp_path / "results.csv").values()
    assert row["status"] == "UNVERIFIED" and row["gen_time_s"] != ""
    assert "verify PASS" not in printed
    assert printed.rstrip().endswith("0 passed, 0 failed, 1 unverified")


def test_module_entry_rejects_unknown_kernels() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "polybench", "--kernels", "gemm,nosuch", "--out", "/nonexistent"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 2
    assert "unknown kernel or category: nosuch" in proc.stderr


def test_selection_by_category() -> None:
    suite = project_suite()
    assert len(suite) == 31  # the 30, then gramschmidt-real (the suite's own shapes)
    assert suite[-1].name == "gramschmidt-real" and suite[-1].category == "linear-algebra/solvers"
    assert [b.name for b in select(suite, "stencils")] == [
        "adi", "fdtd-2d", "heat-3d", "jacobi-1d", "jacobi-2d", "seidel-2d"
    ]  # fmt: skip
    assert len(select(suite, "linear-algebra")) == 20
    assert [b.name for b in select(suite, "blas,gemm")][:2] == ["gemm", "gemver"]
    assert len(select(suite, "all")) == 31
    with pytest.raises(SelectionError, match="nosuch"):
        select(suite, "nosuch")


def test_discover_reads_types_and_skips_utilities(fake_root: Path) -> None:
    found = {b.name: b for b in discover(fake_root)}
    assert set(found) == {"durbin", "jacobi-1d", "broken-1d"}
    assert found["jacobi-1d"].data_type == "double"
    with pytest.raises(FileNotFoundError):
        discover(fake_root / "stencils")


def test_error_line_and_time_parsing() -> None:
    gcc = "x.cu: In function 'f':\nx.cu:3:4: error: 'c0' was not declared\n   3 | c0\n"
    assert first_error_line(gcc) == "x.cu:3:4: error: 'c0' was not declared"
    assert first_error_line("\n  Segmentation fault\n") == "Segmentation fault"
    assert first_error_line("", "none") == "none"
    crash = 'Traceback (most recent call last):\n  File "x.py"\nSyntaxError: bad f-string\n'
    assert first_error_line(crash) == "SyntaxError: bad f-string"
    assert parse_time("0.001234\n") == pytest.approx(0.001234)
    assert parse_time("noise\n1.5\n") == 1.5 and parse_time("no time\n") is None
