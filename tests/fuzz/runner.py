"""Compile one generated program with ppcg-py and classify what happened.

Verdicts:
  pass        the harness found the same arrays in every thread order (detail AS_CXX:
              those of the original built as C++, not as C; see ppcg_py.verify.harness;
              detail ON_HOST: ppcg-py ran out of time and left SCoPs on the host;
              detail OPENCL_MATH: the OpenCL output differs from C, its kernels call
              math functions, and the same compilation for CUDA, which the emulation
              runs with the host's math library, matches: the OpenCL runtime's
              functions (PoCL's cos is not glibc's to the last bit, fuzz 16:104);
              detail ILL_CONDITIONED: with --reductions (sums reassociated) the numbers
              differ, and so do the original's when only its rounding changes (built
              with x87 extended precision): results that a last-bit change moves
              beyond the tolerance (fuzz 2812:278: sin of 1e14)
  rejection   ppcg-py refused the program with one located error line (fine)
  ice         internal compiler error / traceback (a bug)
  crash       ppcg-py died (signal) or gave an unexpected exit status
  bad-error   a rejection that is not one `file:line:col: error: ...` line
  timeout     ppcg-py, a build or a run took too long
  nvcc        nvcc rejected the generated CUDA
  build       g++ could not build the generated CUDA for the emulation
  run-crash   the emulated program failed (out-of-bounds, poisoned memory ...)
  mismatch    the emulated program computed different numbers
  generator   the reference itself failed: a fuzzer bug, never ppcg-py's
"""
from __future__ import annotations

import os
import re
import resource
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Iterator

from ppcg_py.verify.harness import VerifyConfig, VerifyReport, verify
from ppcg_py.verify.opencl import opencl_unavailable

from .program import CastTo, Local, Num, Program, walk_nodes

FAILURES = ("ice", "crash", "bad-error", "timeout", "nvcc", "build", "run-crash", "mismatch",
            "generator")
ROOT = Path(__file__).resolve().parents[2]
AS_CXX = "as C++"
ON_HOST = "on the host"
OPENCL_MATH = "OpenCL math"
ILL_CONDITIONED = "ill-conditioned"
_LOCATED = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.+)$")
_OPTION = re.compile(r"^(?:ppcg-py: )?error: (?P<msg>--?[\w-]+.*)$")


@dataclass(frozen=True)
class Outcome:
    verdict: str
    detail: str = ""                       # rejection reason / failure signature
    message: str = ""                      # full text for the report
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict, compare=False)

    @property
    def failed(self) -> bool:
        return self.verdict in FAILURES

    @property
    def signature(self) -> tuple[str, str]:
        """What "fails the same way" means to the shrinker."""
        return (self.verdict, self.detail if self.verdict in ("ice", "bad-error", "crash", "mismatch") else "")


def data_type_of(program: Program) -> str:
    """The harness tolerance: the least precise type the dumped values are computed in.

    Not only the dumped arrays: a float scalar, local, cast or literal in a double
    computation rounds its value to float, and a C++ build (the CUDA emulation's
    reference on a mismatch) picks float overloads of math calls where C computes in double.
    """
    types = {a.ctype for a in program.arrays} | {s.ctype for s in program.scalars}
    for scop in program.scops:
        for node in walk_nodes(scop):
            if isinstance(node, Local):
                types.add(node.ctype)
            for expr in (getattr(node, "rhs", None), getattr(node, "init", None)):
                types |= set(_types_in(expr))
    for loose in ("float", "double", "int"):
        if loose in types:
            return loose
    return "double"


def _types_in(expr) -> Iterator[str]:
    """The C types an expression converts to (casts, float literals)."""
    if isinstance(expr, CastTo):
        yield expr.ctype
    if isinstance(expr, Num) and expr.kind == "float":
        yield "float"
    if is_dataclass(expr):
        for f in fields(expr):
            value = getattr(expr, f.name)
            for part in (value if isinstance(value, tuple) else (value,)):
                yield from _types_in(part)


def normalise_reason(message: str) -> str:
    """A rejection message without its specifics, to count reasons."""
    text = re.sub(r"'[^']*'", "'…'", message)
    text = re.sub(r"\b\d+\b", "N", text)
    return text.split(" (")[0].strip()


# ppcg-py's budget is CPU time, not wall time: on a loaded machine a wall-clock limit
# would report the machine's load as a compiler bug.
CPU_LIMIT_S = 60
WALL_LIMIT_S = 900
_CPU_SIGNALS = (-signal.SIGXCPU, -signal.SIGKILL)


def _compiler(root: Path, sink: list[subprocess.CompletedProcess[str]], cpu_limit: int):
    def limit_cpu() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_limit, cpu_limit + 5))

    def run(cfg: VerifyConfig, out_dir: Path) -> subprocess.CompletedProcess[str]:
        # ppcg-py's own bound fires first (and falls back to a simpler compilation);
        # the CPU limit is the backstop
        command = [sys.executable, "-m", "ppcg_py", "-v", "--timeout", str(max(1, cpu_limit // 2)),
                   *cfg.ppcg_args, "--output-dir", str(out_dir), str(cfg.source)]
        env = {**os.environ, "PYTHONPATH": str(root)}
        try:
            proc = subprocess.run(command, capture_output=True, text=True, timeout=WALL_LIMIT_S, env=env,
                                  cwd=str(out_dir), check=False, preexec_fn=limit_cpu)
        except subprocess.TimeoutExpired:
            proc = subprocess.CompletedProcess(command, 124, "", f"timed out after {WALL_LIMIT_S} s (wall)")
        report, errors = _split_verbose(proc.stderr)
        if proc.returncode in _CPU_SIGNALS:
            errors = f"used more than {cpu_limit} s of CPU time in {_running_stage(report)}\n"
        proc = subprocess.CompletedProcess(command, 124 if proc.returncode in _CPU_SIGNALS else proc.returncode,
                                           proc.stdout, errors)
        sink.append(proc)
        return proc
    return run


def _ice_signature(err: str) -> str:
    """Exception type and the start of its message, without names and numbers."""
    m = re.search(r"internal compiler error \((\w+): ([^\n]*)", err)
    if m is None:
        m = re.search(r"^(\w+(?:Error|Exception)): ?([^\n]*)", err, re.M)
    if m is None:
        return "traceback"
    return f"{m.group(1)}: {normalise_reason(m.group(2))[:60]}"


_VERBOSE = re.compile(r"^ppcg-py: (?!error:)")
_STAGE = re.compile(r"^ppcg-py: (extract|schedule|memory|codegen)\b.*: [\d.]+ ms$")
_NEXT_STAGE = {"extract": "schedule", "schedule": "schedule or memory", "memory": "codegen", "codegen": "writing"}


def _split_verbose(stderr: str) -> tuple[list[str], str]:
    """ppcg-py -v's report lines (stage times, kernels) apart from everything else."""
    report, rest = [], []
    for line in stderr.splitlines(keepends=True):
        (report if _VERBOSE.match(line) else rest).append(line)
    return report, "".join(rest)


def _running_stage(report: list[str]) -> str:
    """The stage ppcg-py was in when it was stopped: the one after the last timed one."""
    done = [m.group(1) for line in report if (m := _STAGE.match(line.strip()))]
    return _NEXT_STAGE[done[-1]] if done else "extract"


def classify_compiler(proc: subprocess.CompletedProcess[str], source: Path) -> Outcome | None:
    """The outcome when ppcg-py did not succeed; None when it did."""
    err = proc.stderr.strip()
    if proc.returncode == 0:
        return None
    if proc.returncode == 124:
        m = re.search(r" in ([\w ]+)$", err)
        return Outcome("timeout", f"ppcg {m.group(1)}" if m else "ppcg", err)
    m = re.search(r"error: (.+?) (?:did not finish within|exceeded isl's operation limit)", err)
    if m or re.search(r"compiling process died in .*signal (?:9|24)\)", err):
        return Outcome("timeout", f"ppcg {m.group(1)}" if m else "ppcg", err)
    if "Traceback" in err or "internal compiler error" in err:
        return Outcome("ice", _ice_signature(err), err)
    if proc.returncode < 0:
        return Outcome("crash", f"signal {-proc.returncode}", err)
    lines = err.splitlines()
    if proc.returncode == 1 and len(lines) == 1:
        m = _LOCATED.match(lines[0])
        if m and m.group("file") == str(source):
            return Outcome("rejection", normalise_reason(m.group("msg")), lines[0])
        m = _OPTION.match(lines[0])
        if m:
            return Outcome("rejection", normalise_reason(m.group("msg")), lines[0])
    if proc.returncode == 1:
        return Outcome("bad-error", normalise_reason(lines[0] if lines else "no message"), err)
    return Outcome("crash", f"exit {proc.returncode}", err)


_DIED = re.compile(r"the compiling process died \((killed by signal (?!(?:9|24)\))\d+|exit status -?\d+)\)")


def retried_crash(stderr: str) -> Outcome | None:
    """A crash of the compiling process that ppcg-py survived by compiling again with
    simpler options (its warning says so): correct code, but a bug all the same (isl's
    coalescing crashed on a 2-D Jacobi stencil over 70 x 70 constant-size arrays under
    --hybrid, and such a case counted as a pass). Not SIGKILL or SIGXCPU: the watchdog's
    own ends of a step too long."""
    m = _DIED.search(stderr)
    return Outcome("crash", f"{m.group(1)}, compiled again", stderr) if m else None


def classify_report(report: VerifyReport) -> Outcome:
    for failure in report.failures:
        text = failure.message
        timed_out = "timed out" in text or "exit status 124" in text
        if failure.stage.startswith("reference"):
            return Outcome("generator", failure.stage, text)
        if timed_out:
            return Outcome("timeout", failure.stage, text)
        if failure.stage == "nvcc":
            return Outcome("nvcc", "", text)
        if failure.stage in ("emulated build", "gcc -fopenmp"):
            return Outcome("build", "", text)
        if failure.stage.startswith("run"):
            return Outcome("run-crash", "", text)
        return Outcome("crash", failure.stage, text)
    if report.matches_cxx_only:
        return Outcome("pass", AS_CXX, "equal to the original built as C++, not as C:\n" + report.summary())
    if any(report.mismatches.values()):
        orders = ",".join(order for order, problems in report.mismatches.items() if problems)
        return Outcome("mismatch", orders, report.summary())
    return Outcome("pass")


def run_case(source_text: str, program: Program, args: tuple[str, ...], workdir: Path, *,
             use_nvcc: bool | None = False, root: Path = ROOT, compile_timeout: float = 600,
             run_timeout: float = 300, cpu_limit: int = CPU_LIMIT_S) -> Outcome:
    """Write a generated program to workdir/prog.c (and the functions it only declares
    to workdir/prog_lib.c, linked with every build), verify it, classify the result."""
    from .render import render_library
    workdir = workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    source = workdir / "prog.c"
    source.write_text(source_text)
    extra: tuple[str, ...] = ()
    lib = render_library(program)
    if lib is not None:
        (workdir / "prog_lib.c").write_text(lib)
        extra = (str(workdir / "prog_lib.c"),)
    return run_file(source, args, data_type_of(program), workdir, use_nvcc=use_nvcc, root=root,
                    compile_timeout=compile_timeout, run_timeout=run_timeout, cpu_limit=cpu_limit,
                    extra_c_sources=extra)


def run_file(source: Path, args: tuple[str, ...], data_type: str, workdir: Path, *,
             use_nvcc: bool | None = False, root: Path = ROOT, compile_timeout: float = 600,
             run_timeout: float = 300, cpu_limit: int = CPU_LIMIT_S,
             extra_c_sources: tuple[str, ...] = ()) -> Outcome:
    """Verify one C file compiled with `args`, linked with `extra_c_sources` (the
    definitions of functions it only declares); classify the result."""
    source = Path(source).resolve()
    calls: list[subprocess.CompletedProcess[str]] = []
    if "--target=opencl" in args and opencl_unavailable() is not None:
        args = tuple(a for a in args if a != "--target=opencl")    # no OpenCL runtime here: as CUDA
    target = "c" if "--target=c" in args else "opencl" if "--target=opencl" in args else "cuda"
    cfg = VerifyConfig(source=source, ppcg_args=tuple(args), use_nvcc=use_nvcc, data_type=data_type,
                       orders=("forward", "reverse"), run_timeout=run_timeout,
                       compile_timeout=compile_timeout, cxx_reference=True, target=target,
                       extra_c_sources=tuple(str(Path(f).resolve()) for f in extra_c_sources))
    start = time.perf_counter()
    report = verify(cfg, Path(workdir).resolve() / "verify", compiler=_compiler(root, calls, cpu_limit))
    seconds = time.perf_counter() - start
    outcome = classify_compiler(calls[-1], source) if calls else None
    if outcome is None:
        outcome = classify_report(report)
        if outcome.verdict == "pass":
            outcome = retried_crash(calls[-1].stderr) or outcome
        if outcome.verdict == "pass" and "SCoP left on the host" in calls[-1].stderr:
            outcome = Outcome("pass", ON_HOST, calls[-1].stderr)
    if outcome.verdict == "mismatch" and target == "opencl" and _calls_math(workdir / "verify" / "generated"):
        as_cuda = run_file(source, tuple(a for a in args if a != "--target=opencl"), data_type, workdir / "cuda",
                           use_nvcc=use_nvcc, root=root, compile_timeout=compile_timeout,
                           run_timeout=run_timeout, cpu_limit=cpu_limit, extra_c_sources=extra_c_sources)
        if as_cuda.verdict == "pass":
            outcome = Outcome("pass", OPENCL_MATH, "the same compilation for CUDA matches C; on the OpenCL "
                              "runtime, whose kernels call its math functions:\n" + outcome.message)
    if outcome.verdict == "mismatch" and "--reductions" in args and data_type in ("double", "float") and \
            _ill_conditioned(cfg, Path(workdir).resolve() / "verify"):
        outcome = Outcome("pass", ILL_CONDITIONED, "the original's own results move beyond the tolerance when "
                          "built with x87 extended precision; with --reductions (sums reassociated):\n"
                          + outcome.message)
    return Outcome(outcome.verdict, outcome.detail, outcome.message, seconds, dict(report.timings))


def _ill_conditioned(cfg: VerifyConfig, verify_dir: Path) -> bool:
    """Whether the original's results, built as the reference is but computing in the
    x87's extended precision (each operation rounded otherwise, nothing reordered), differ
    from the reference's beyond the data type's tolerance: a reassociated sum's last-bit
    change then says nothing about ppcg-py. x86-64 only."""
    import platform

    from ppcg_py.verify.dump import DumpError, compare_dumps, parse_dump, tolerance_for
    from ppcg_py.verify.harness import CFLAGS
    from ppcg_py.verify.tools import preprocessor_flags
    if platform.machine() != "x86_64" or not (verify_dir / "reference.stderr").exists():
        return False
    binary = verify_dir / "reference-x87"
    build = subprocess.run(["gcc", *CFLAGS, "-mfpmath=387", *preprocessor_flags(cfg.include_dirs, cfg.all_defines),
                            str(cfg.source), *cfg.extra_c_sources, "-o", str(binary), "-lm"],
                           capture_output=True, text=True, check=False)
    if build.returncode != 0:
        return False
    try:
        run = subprocess.run([str(binary), *cfg.program_args], capture_output=True, text=True, timeout=cfg.run_timeout,
                             check=False)
        expected = parse_dump((verify_dir / "reference.stderr").read_text())
        x87 = parse_dump(run.stderr)
    except (subprocess.TimeoutExpired, DumpError):
        return False
    rtol, atol = tolerance_for(cfg.data_type)
    return run.returncode == 0 and bool(compare_dumps(expected, x87, rtol=rtol, atol=atol))


_MATH_CALL = re.compile(r"\b(?:a?sinh?|a?cosh?|a?tanh?|atan2|exp2?|expm1|log(?:2|10|1p)?|pow|sqrt|cbrt|hypot|erfc?|"
                        r"[lt]gamma)\s*\(")


def _calls_math(generated: Path) -> bool:
    """Whether an OpenCL kernel file in `generated` calls a math function that OpenCL
    computes within some ulps (floor, fabs, fmax and the like are exact)."""
    return any(_MATH_CALL.search(cl.read_text()) for cl in generated.glob("*_kernel.cl"))
