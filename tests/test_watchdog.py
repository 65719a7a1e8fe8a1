"""Runaway compilations: --timeout and --isl-max-operations end in a fallback or a
located error naming the step, never a hang (ppcg_py/watchdog.py)."""
from __future__ import annotations

import faulthandler
import os
import re
import signal
import subprocess
import time
from dataclasses import replace
from pathlib import Path

import pytest

from ppcg_py import driver
from ppcg_py.cli import build_parser, main, options_from
from ppcg_py.verify.harness import VerifyConfig, verify
from ppcg_py.watchdog import Step, StepTooLong, run_with_deadline

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "matmul.c"


def _spin(seconds: float) -> None:
    """Use the CPU for `seconds` (the deadline counts CPU time, not sleep)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def test_deadline_names_the_running_step():
    def work(progress):
        progress(Step("memory (f)", 12))
        _spin(30)

    start = time.monotonic()
    with pytest.raises(StepTooLong) as info:
        run_with_deadline(work, 0.5)
    assert time.monotonic() - start < 10
    assert info.value.step == Step("memory (f)", 12)
    assert "did not finish within 0.5 s" in info.value.what


def test_a_child_that_does_not_use_the_cpu_ends_after_four_deadlines_of_wall_time():
    def blocked(progress):
        progress(Step("codegen"))
        time.sleep(30)

    start = time.monotonic()
    with pytest.raises(StepTooLong) as info:
        run_with_deadline(blocked, 0.5)
    assert 2 <= time.monotonic() - start < 10
    assert info.value.step == Step("codegen")


def test_the_deadline_counts_cpu_time_not_waiting(monkeypatch):
    """A machine busy with other work (make -j) must not change what is generated:
    a child that waits for the CPU has not used its budget."""
    from ppcg_py import watchdog
    monkeypatch.setattr(watchdog, "_cpu_seconds", lambda pid: 0.0)   # as if never scheduled

    def slow_but_idle(progress):
        time.sleep(1.5)
        return "done"
    assert run_with_deadline(slow_but_idle, 1) == "done"


def test_results_exceptions_and_output_cross_from_the_child(capsys):
    def work(progress):
        print("dumped")
        return {"a": 1}
    assert run_with_deadline(work, 30) == {"a": 1}
    assert capsys.readouterr().out == "dumped\n"

    def failing(progress):
        raise ValueError("boom")
    with pytest.raises(ValueError, match="boom"):
        run_with_deadline(failing, 30)


def test_slow_compilation_falls_back_to_the_simple_configuration(monkeypatch, tmp_path, capsys):
    """The first try (with promotion) hangs; the retry (original order, global memory) is used."""
    real = driver.compile_source

    def slow_when_promoting(path, options, progress=None, on_host=driver.OnHost()):
        if options.use_shared_memory:
            progress(Step("memory (matmul)", 26))
            _spin(60)
        return real(path, options, progress, on_host)

    monkeypatch.setattr(driver, "compile_source", slow_when_promoting)
    assert main(["--timeout", "5", "--output-dir", str(tmp_path), str(EXAMPLE)]) == 0
    err = capsys.readouterr().err
    assert f"{EXAMPLE}:26:1: warning: memory (matmul) did not finish within 5 s; compiling again" in err
    kernel = (tmp_path / "matmul_kernel.cu").read_text()
    assert "__global__" in kernel and "__shared__" not in kernel


def test_a_scop_too_slow_in_every_configuration_stays_on_the_host(monkeypatch, tmp_path, capsys):
    """Past both tries, the SCoP keeps its C code: a correct program, with a warning."""
    real = driver.compile_source

    def slow_unless_on_host(path, options, progress=None, on_host=driver.OnHost()):
        if not on_host.every and 26 not in on_host.lines:
            progress(Step("memory (matmul)", 26))
            _spin(60)
        return real(path, options, progress, on_host)

    def compiler(cfg, out_dir):
        status = main(["--timeout", "2", *cfg.ppcg_args, "--output-dir", str(out_dir), str(cfg.source)])
        return subprocess.CompletedProcess([], status, "", "")

    monkeypatch.setattr(driver, "compile_source", slow_unless_on_host)
    report = verify(VerifyConfig(source=EXAMPLE, use_nvcc=False), tmp_path, compiler=compiler)
    assert report.ok, report.summary()
    err = capsys.readouterr().err
    assert (f"{EXAMPLE}:26:1: warning: memory (matmul) did not finish within 2 s; compiling again with that "
            "SCoP left on the host as its original C code") in err
    host = (tmp_path / "generated" / "matmul_host.cu").read_text()
    assert "/* ppcg-py: this SCoP runs on the host, as its original C code */\n#pragma scop" in host
    assert "__global__" not in (tmp_path / "generated" / "matmul_kernel.cu").read_text()


def test_a_crash_falls_back_to_the_simple_configuration(monkeypatch, tmp_path, capsys):
    """A compiling process that dies (isl segfaulted in the memory stage, fuzz 14:41)
    is tried again like one that ran too long."""
    real = driver.compile_source

    def crash_when_promoting(path, options, progress=None, on_host=driver.OnHost()):
        if options.use_shared_memory:
            progress(Step("memory (matmul)", 26))
            faulthandler.disable()     # pytest's handler would print the child's stack
            os.kill(os.getpid(), signal.SIGSEGV)
        return real(path, options, progress, on_host)

    monkeypatch.setattr(driver, "compile_source", crash_when_promoting)
    assert main(["--output-dir", str(tmp_path), str(EXAMPLE)]) == 0
    err = capsys.readouterr().err
    assert (f"{EXAMPLE}:26:1: warning: memory (matmul): the compiling process died (killed by signal 11); "
            "compiling again with the original loop order and global memory only") in err
    assert "__global__" in (tmp_path / "matmul_kernel.cu").read_text()


def test_a_crash_in_every_try_is_an_internal_error(monkeypatch, tmp_path, capsys):
    def crash(path, options, progress=None, on_host=driver.OnHost()):
        progress(Step("memory (matmul)", 26))
        faulthandler.disable()
        os.kill(os.getpid(), signal.SIGSEGV)

    monkeypatch.setattr(driver, "compile_source", crash)
    assert main(["--output-dir", str(tmp_path), str(EXAMPLE)]) != 0
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert "internal compiler error" in last and "killed by signal 11" in last
    assert list(tmp_path.iterdir()) == []


def test_timeout_in_every_try_is_a_located_error(monkeypatch, tmp_path, capsys):
    def hang(path, options, progress=None, on_host=driver.OnHost()):
        progress(Step("codegen"))
        progress(Step("memory (matmul)", 26))
        _spin(60)

    monkeypatch.setattr(driver, "compile_source", hang)
    assert main(["--timeout", "1", "--output-dir", str(tmp_path), str(EXAMPLE)]) == 1
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last == (f"{EXAMPLE}:26:1: error: memory (matmul) did not finish within 1 s, also with the original "
                    "loop order and global memory only, then with that SCoP left on the host as its original C "
                    "code, then with every SCoP left on the host as its original C code")
    assert list(tmp_path.iterdir()) == []


def test_operation_limit_is_reported_with_its_step(tmp_path, capsys):
    assert main(["--isl-max-operations", "20", "--output-dir", str(tmp_path), str(EXAMPLE)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert re.fullmatch(rf"{re.escape(str(EXAMPLE))}: error: extract exceeded isl's operation limit \(20\)", err[0])
    assert list(tmp_path.iterdir()) == []


def test_a_generous_operation_limit_changes_nothing(tmp_path):
    bounded, plain = tmp_path / "bounded", tmp_path / "plain"
    bounded.mkdir(), plain.mkdir()
    assert main(["--isl-max-operations", "100000000", "--output-dir", str(bounded), str(EXAMPLE)]) == 0
    assert main(["--timeout", "0", "--output-dir", str(plain), str(EXAMPLE)]) == 0
    for name in ("matmul_host.cu", "matmul_kernel.cu", "matmul_kernel.hu"):
        assert (bounded / name).read_text() == (plain / name).read_text()


def test_ast_reports_a_step_per_scop(tmp_path):
    """So that a timeout while building a SCoP's AST names the SCoP, and only that SCoP is left on the host."""
    steps: list[Step] = []
    driver.compile_source(str(EXAMPLE), options_from(build_parser().parse_args([str(EXAMPLE)])), steps.append)
    assert [s.name for s in steps] == ["extract", "schedule (matmul)", "host path (matmul)", "memory (matmul)",
                                       "ast (matmul)", "host path ast (matmul)", "print"]
    assert steps[-2].line == steps[-3].line == 26


def test_a_scop_ast_past_its_bound_is_built_without_unrolling(monkeypatch, tmp_path):
    """The fallback of the SCoP's AST: loops where it unrolled, and still the same numbers."""
    from ppcg_py.codegen import ast
    monkeypatch.setattr(ast, "LIMITS", replace(ast.LIMITS, scop_ast=1))

    def compiler(cfg, out_dir):
        status = main([*cfg.ppcg_args, "--output-dir", str(out_dir), str(cfg.source)])
        return subprocess.CompletedProcess([], status, "", "")

    report = verify(VerifyConfig(source=EXAMPLE, use_nvcc=False, ppcg_args=("--tile-sizes", "8,8,4")), tmp_path,
                    compiler=compiler)
    assert report.ok, report.summary()
