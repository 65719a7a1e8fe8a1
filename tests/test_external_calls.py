"""Calls to functions the file only declares (extract/external.py): one statement of
the model, run on the host between kernels with the copies it needs
(memory/host_syncs.py), in place with the C target. The programs that verify the
numbers on three targets are the corpus's ext_*.c; these tests look at the code."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from ppcg_py.cli import main

from polybench_cases import EVERY_LOOP

CORPUS = Path(__file__).parent / "front_end_corpus"


def _compile(name: str, tmp_path: Path, *args: str) -> str:
    assert main([*EVERY_LOOP, *args, "--output-dir", str(tmp_path), str(CORPUS / name)]) == 0
    target = next((a.split("=")[1] for a in args if a.startswith("--target=")), "cuda")
    pattern = {"cuda": "*_host.cu", "c": "*.ppcg.c", "opencl": "*_host.c"}[target]
    return next(tmp_path.glob(pattern)).read_text()


def _scop(text: str) -> str:
    return text[text.index("/* SCoP of"):]


def test_log_progress_keeps_inner_loop_a_kernel(tmp_path, capsys):
    """`log_progress(i)` at the top of each outer iteration: the outer loop is a host
    loop, the call runs in it on the host, and the inner loop is a kernel launched at
    each iteration, with the global the logger may read copied around the call."""
    code = _scop(_compile("ext_log_progress.c", tmp_path, "-v"))
    loop = re.search(r"for \(int (c\d) = 0; \1 < n; \1 \+= 1\) \{|for \(int (c\d) = 0; \2 < n; \2\+\+\) \{", code)
    assert loop, code
    body = code[loop.end():]
    call = body.index("log_progress(")
    launch = body.index("kernel0 <<<")
    assert call < launch, code
    back = body.index("cudaMemcpy2D((double *) ext_matrix")      # to the host before the call
    again = body.index("cudaMemcpy2D(dev_ext_matrix")            # to the device after it
    assert back < call < again < launch, code
    err = capsys.readouterr().err
    assert "runs on the host between kernels: it calls 'log_progress'" in err, err
    assert "copied back and forth around it: ext_matrix" in err, err
    assert err.count("warning: 'log_progress' has no body in this file") == 1, err


def test_calls_keep_their_order_and_the_rest_stays_parallel(tmp_path):
    """next_value() has hidden state: its loop runs in order on the host; the nest after
    it is a kernel."""
    code = _scop(_compile("ext_value_in_expression.c", tmp_path))
    assert "next_value()" in code and "kernel0 <<<" in code
    assert code.index("next_value()") < code.index("kernel0 <<<")


def test_host_loop_of_calls_copies_once(tmp_path):
    """A host loop nest of calls copies the arrays once before and once after, not
    per call."""
    code = _scop(_compile("ext_pointer_row.c", tmp_path))
    loop = code.index("scale_row(")
    before, after = code[:loop], code[loop:]
    assert before.count("cudaMemcpy2D((double *) A") == 1, code     # after kernel0, once
    assert "for (int c0" in before[before.rindex("cudaMemcpy2D((double *) A"):], code
    assert after[:after.index("for (int c0")].count("cudaMemcpy2D(dev_A") == 1, code     # back, once


@pytest.mark.parametrize("name", ["ext_log_progress.c", "ext_value_in_expression.c", "ext_pointer_row.c"])
def test_c_target_keeps_calls_in_serial_loops(name, tmp_path):
    """With the C target the call stays in place, in a loop no OpenMP pragma marks."""
    code = _scop(_compile(name, tmp_path, "--target=c", "--openmp"))
    lines = code.splitlines()
    calls = [k for k, line in enumerate(lines) if re.search(r"\b(log_progress|next_value|scale_row|row_sum)\(", line)]
    assert calls, code
    for k in calls:
        for j in _enclosing_loops(lines, k):    # a serial loop inside one `omp parallel` region is fine
            assert not re.search(r"omp (parallel )?for", lines[j - 1]), code
            if lines[j - 1].strip() == "#pragma omp parallel":
                assert "omp single" in lines[k - 1], code     # one thread of the region calls it


def _enclosing_loops(lines: list[str], k: int) -> list[int]:
    """The lines of the `for` loops around line k (by indentation)."""
    found, depth = [], len(lines[k]) - len(lines[k].lstrip())
    for j in range(k - 1, -1, -1):
        indent = len(lines[j]) - len(lines[j].lstrip())
        if indent < depth and lines[j].strip():
            if lines[j].lstrip().startswith("for ("):
                found.append(j)
            depth = indent
    return found


def test_pure_function_loops_stay_parallel_on_the_cpu(tmp_path):
    code = _scop(_compile("ext_pure_attribute.c", tmp_path, "--target=c", "--openmp"))
    lines = code.splitlines()
    call = next(k for k, line in enumerate(lines) if "smooth_step(" in line)
    assert any("omp" in lines[j - 1] for j in _enclosing_loops(lines, call)), code


def test_array_without_size_passed_to_a_call_is_rejected(tmp_path, capsys):
    source = tmp_path / "open.c"
    source.write_text("void fill(double *p);\nvoid f(int n, double *A)\n{\n#pragma scop\n"
                      "  for (int i = 0; i < n; i++)\n    fill(A);\n#pragma endscop\n}\n")
    assert main(["--output-dir", str(tmp_path), str(source)]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and re.match(rf"{re.escape(str(source))}:6:\d+: error: .*declare its size", err[0]), err


def test_loop_of_a_pure_call_and_device_work_is_split(tmp_path):
    """A pure call and device work in one parallel loop body, no dependence back to the
    call: the band is split, the calls run in one host loop, the rest in one launch (not
    a launch per iteration)."""
    source = tmp_path / "split.c"
    source.write_text("double smooth_step(double v) __attribute__((const));\n"
                      "void f(int n, double x[100], double y[100], double z[100])\n{\n#pragma scop\n"
                      "  for (int i = 0; i < n; i++) {\n    y[i] = smooth_step(x[i]);\n"
                      "    z[i] = y[i] * 2 + x[i];\n  }\n#pragma endscop\n}\n")
    assert main(["--output-dir", str(tmp_path), str(source)]) == 0
    code = _scop((tmp_path / "split_host.cu").read_text())
    lines = code.splitlines()
    launch = next(k for k, line in enumerate(lines) if "kernel0 <<<" in line)
    assert not _enclosing_loops(lines, launch), code
    call = next(k for k, line in enumerate(lines) if "smooth_step(" in line)
    assert _enclosing_loops(lines, call) and call < launch, code
