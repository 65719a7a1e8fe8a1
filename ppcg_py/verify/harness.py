"""Check the compiler end to end on one PolyBench-style C program.

The original program, built with gcc, is the reference.  The compiler's CUDA
output must pass nvcc (when installed) and, built for the CPU emulation, must
print the same array dump under every requested fiber order: a different
order changes the outcome only when a barrier is missing or misplaced.

CUDA is C++: on the device `sin` of a float is the float sine (C's returns
double), and so is the rest of the expression around it.  A program whose
values are sensitive enough (branches on thresholds, values that grow) can
then differ from C by more than any tolerance.  With `cxx_reference`, results
that differ from C are also compared with the original built as C++ by g++,
which has the device's overloads: matching that is not a miscompilation.

With `target="opencl"` the compiler writes OpenCL (NAME_host.c, NAME_kernel.cl):
gcc builds the host file with -lOpenCL, and the program runs once, from the
folder of its kernel file, on the OpenCL runtime installed (PoCL on the CPU).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from .c_target import verify_c_output
from .common import CC, StageFailure, Steps, VerifyConfig, dump_of, parsed_output
from .dump import Dump, DumpError, compare_dumps, tolerance_for
from .emulate import ORDERS, build_emulated, run_emulated
from .nvcc import nvcc_available, nvcc_check
from .opencl import verify_opencl_output
from .tools import BuildError, preprocessor_flags, run_program, run_tool

__all__ = [
    "Compiler",
    "StageFailure",
    "VerifyConfig",
    "VerifyReport",
    "data_type_from_defines",
    "generated_files",
    "run_ppcg",
    "verify",
]

CFLAGS = ("-O1", "-std=gnu99")
CXX = "g++"
CXXFLAGS = ("-O1", "-std=gnu++17", "-x", "c++")
# a program with host paths asks this at each SCoP (codegen/path_choice.py); its run
# without a device is named so
HOST_PATH_CALL = "ppcg_py_on_device("
HOST_PATH_RUN = "host path"
_MESSAGE_LINES = 25


# Runs the compiler on cfg.source, writing into the given output dir.
Compiler = Callable[[VerifyConfig, Path], subprocess.CompletedProcess[str]]


@dataclass(frozen=True)
class VerifyReport:
    """What happened at each step; `ok` when nothing failed and every order matched."""

    source: Path
    failures: tuple[StageFailure, ...] = ()
    mismatches: dict[str, tuple[str, ...]] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    # against the original built as C++, when C's differs (cfg.cxx_reference; None: not built)
    cxx_mismatches: dict[str, tuple[str, ...]] | None = None

    @property
    def matches_cxx_only(self) -> bool:
        """Differs from C but not from C++: the device's float math overloads, not a bug."""
        return (not self.failures and any(self.mismatches.values()) and self.cxx_mismatches is not None
                and not any(self.cxx_mismatches.values()))

    @property
    def ok(self) -> bool:
        return not self.failures and not any(self.mismatches.values())

    def summary(self) -> str:
        times = ", ".join(f"{step} {seconds:.2f} s" for step, seconds in self.timings.items())
        if self.ok:
            orders = ", ".join(self.mismatches) or "no order"
            return f"PASS: {self.source.name}: {orders} match the reference ({times})"
        lines = [f"FAIL: {self.source.name} ({times})"]
        for failure in self.failures:
            lines.append(f"  {failure.stage}: " + _indent(failure.message, "    ").lstrip())
        for order, problems in self.mismatches.items():
            if problems:
                lines.append(f"  {order}: results differ from the reference:")
                lines += [f"    {p}" for p in problems]
        if self.cxx_mismatches is not None:
            lines.append("  the original built as C++ (the device's float math overloads) computes "
                         + ("these same numbers" if self.matches_cxx_only else "other numbers too"))
        return "\n".join(lines)


def _indent(text: str, prefix: str) -> str:
    lines = text.strip().splitlines()
    if len(lines) > _MESSAGE_LINES:
        lines = [*lines[:_MESSAGE_LINES], f"... ({len(lines) - _MESSAGE_LINES} more lines)"]
    return "\n".join(prefix + line for line in lines)


def data_type_from_defines(defines: tuple[str, ...] | list[str]) -> str:
    """PolyBench's element type as selected by -DDATA_TYPE_IS_FLOAT|DOUBLE|INT."""
    for define in defines:
        name = define.split("=")[0]
        if name.startswith("DATA_TYPE_IS_"):
            return name.removeprefix("DATA_TYPE_IS_").lower()
    return "double"


def generated_files(source: Path, out_dir: Path) -> tuple[Path, Path]:
    """The host and kernel files the compiler writes for `source` (the header is beside them).

    The host file is `_host.c` (plain C, for gcc) when the input must stay C, e.g.
    for variable-length array parameters, which C++ rejects; otherwise `_host.cu`.
    """
    c_host = out_dir / f"{source.stem}_host.c"
    host = c_host if c_host.exists() else out_dir / f"{source.stem}_host.cu"
    return host, out_dir / f"{source.stem}_kernel.cu"


def run_ppcg(cfg: VerifyConfig, out_dir: Path) -> subprocess.CompletedProcess[str]:
    """The default compiler: this package's command line, in a subprocess. Every loop
    that may run in parallel does (`--min-parallel-work=0`, unless the arguments give
    that option): a check's data is small, the parallel-work model would keep most
    loops serial, and a short parallel loop is as likely to be wrong as a long one."""
    target = {"c": ["--target=c", "--openmp"], "opencl": ["--target=opencl"]}.get(cfg.target, [])
    every_loop = [] if any(a.startswith("--min-parallel-work") for a in cfg.ppcg_args) else ["--min-parallel-work=0"]
    command = [
        sys.executable,
        "-m",
        "ppcg_py",
        *target,
        *every_loop,
        *cfg.ppcg_args,
        *preprocessor_flags(cfg.include_dirs, cfg.all_defines),
        "--output-dir",
        str(out_dir),
        str(cfg.source),
    ]
    try:
        return subprocess.run(
            command, capture_output=True, encoding="utf-8", errors="replace", timeout=cfg.compile_timeout,
            check=False
        )
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(
            command, 124, "", f"timed out after {cfg.compile_timeout:g} s"
        )


def verify(
    cfg: VerifyConfig,
    workdir: Path,
    *,
    compiler: Compiler = run_ppcg,
    progress: Callable[[str], None] | None = None,
) -> VerifyReport:
    """Build and run the reference and the compiled program; compare their dumps.

    Everything is written under `workdir`: reference, generated/ (the compiler's
    output), emulated-src/ (sources as g++ sees them), emulated, and the stderr
    of every run as *.stderr.
    """
    rtol, atol = tolerance_for(cfg.data_type)
    if bad := [order for order in cfg.orders if order not in ORDERS]:
        raise ValueError(f"unknown fiber orders {bad}; expected some of {ORDERS}")
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    steps = Steps(progress)
    mismatches: dict[str, tuple[str, ...]] = {}
    cxx_mismatches: dict[str, tuple[str, ...]] | None = None

    def report() -> VerifyReport:
        return VerifyReport(cfg.source, tuple(steps.failures), mismatches, steps.timings, cxx_mismatches)

    flags = preprocessor_flags(cfg.include_dirs, cfg.all_defines)
    try:
        proc = _run_original(cfg, flags, workdir, "reference", (CC, *CFLAGS), steps.step)
    except BuildError as exc:
        steps.fail("reference build", exc.stderr)
        return report()
    expected = dump_of(steps, "reference run", proc, cfg.output)
    if expected is None:
        return report()

    out_dir = workdir / "generated"
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir()
    with steps.step("ppcg"):
        proc = compiler(cfg, out_dir)
    (workdir / "ppcg.stderr").write_text(proc.stderr)
    if proc.returncode != 0:
        steps.fail("ppcg", f"exit status {proc.returncode}\n{proc.stderr.strip()}")
        return report()
    if cfg.target == "c":
        mismatches.update(verify_c_output(cfg, out_dir, expected, steps, workdir))
        return report()
    if cfg.target == "opencl":
        mismatches.update(verify_opencl_output(cfg, out_dir, expected, steps))
        return report()
    host, kernel = generated_files(cfg.source, out_dir)
    if not host.exists():
        steps.fail("ppcg", f"exited 0 but wrote no {host.name}")
        return report()
    host_is_c = host.suffix == ".c"
    cu_files = [kernel] if host_is_c else ([host, kernel] if kernel.exists() else [host])

    if cfg.use_nvcc or (cfg.use_nvcc is None and nvcc_available()):
        try:
            with steps.step("nvcc"):
                nvcc_check(
                    cu_files,
                    include_dirs=cfg.include_dirs,
                    defines=cfg.all_defines,
                    device_only=[] if host_is_c else [kernel],
                )
        except BuildError as exc:
            steps.fail("nvcc", exc.stderr)

    emulated = workdir / "emulated"
    try:
        with steps.step("emulated build"):
            build_emulated(
                cu_files,
                emulated,
                # a host file that stays C links with the other C files as C (their names unmangled)
                c_sources=() if host_is_c else cfg.extra_c_sources,
                plain_c_sources=[host, *cfg.extra_c_sources] if host_is_c else [],
                include_dirs=cfg.include_dirs,
                defines=cfg.all_defines,
                source_dir=workdir / "emulated-src",
                timeout=cfg.compile_timeout,
            )
    except BuildError as exc:
        steps.fail("emulated build", exc.stderr)
        return report()

    results: dict[str, Dump] = {}
    # the device code in each thread order; then, where the program has host paths, on
    # a machine without a device: every SCoP takes its host path
    runs = [(order, order, {"PPCG_PY_DEVICE": "gpu"}) for order in cfg.orders]
    if HOST_PATH_CALL in host.read_text(errors="replace"):
        runs.append((HOST_PATH_RUN, cfg.orders[0] if cfg.orders else "forward", {"PPCG_EMU_NO_DEVICE": "1"}))
    for name, order, env in runs:
        with steps.step(f"run {name}"):
            proc = run_emulated(
                emulated, order, cfg.program_args, seed=cfg.seed, timeout=cfg.run_timeout, env=env
            )
        (workdir / f"{name}.stderr").write_text(proc.stderr)
        actual = dump_of(steps, f"run {name}", proc, cfg.output)
        if actual is not None:
            results[name] = actual
            mismatches[name] = tuple(compare_dumps(expected, actual, rtol=rtol, atol=atol))
    if cfg.cxx_reference and any(mismatches.values()):
        as_cxx = _cxx_reference_dump(cfg, flags, workdir)
        if as_cxx is not None:
            cxx_mismatches = {order: tuple(compare_dumps(as_cxx, actual, rtol=rtol, atol=atol))
                              for order, actual in results.items()}
    return report()


def _run_original(cfg: VerifyConfig, flags: list[str], workdir: Path, name: str, compiler: tuple[str, ...],
                  timed: Callable[[str], AbstractContextManager[None]] = lambda _step: nullcontext()
                  ) -> subprocess.CompletedProcess[str]:
    """Build the original program as `workdir/name` with `compiler` (command and flags), run it
    and keep its stderr as `name.stderr`; `timed` times the "reference build" and "reference run"
    steps. Raises BuildError when it does not build: the C and C++ references differ in what that means."""
    binary = workdir / name
    with timed("reference build"):
        run_tool([*compiler, *flags, cfg.source, *cfg.extra_c_sources, "-o", binary, "-lm"],
                 timeout=cfg.compile_timeout)
    with timed("reference run"):
        proc = run_program([binary, *cfg.program_args], timeout=cfg.run_timeout)
    (workdir / f"{name}.stderr").write_text(proc.stderr)
    return proc


def _cxx_reference_dump(cfg: VerifyConfig, flags: list[str], workdir: Path) -> Dump | None:
    """The original's dump when built as C++, or None when it is not valid C++."""
    try:
        proc = _run_original(cfg, flags, workdir, "reference-cxx", (CXX, *CXXFLAGS))
    except BuildError:
        return None
    try:
        return parsed_output(proc, cfg.output) if proc.returncode == 0 else None
    except DumpError:
        return None
