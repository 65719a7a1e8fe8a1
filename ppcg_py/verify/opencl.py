"""Building and running the `--target=opencl` output on a real OpenCL runtime.

The host file is C: gcc builds it with `-lOpenCL`, and the program builds its
kernels (NAME_kernel.cl, beside it) when it runs. Debian's PoCL
(`pocl-opencl-icd`, with `ocl-icd-opencl-dev` for the headers and the loader)
runs OpenCL on the CPU; `make opencl` installs both.
"""

from __future__ import annotations

import functools
import os
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from .common import Steps, VerifyConfig, dump_of
from .dump import Dump, compare_dumps, tolerance_for
from .tools import BuildError, preprocessor_flags, run_tool

__all__ = ["CC", "CFLAGS", "build_opencl", "opencl_unavailable", "run_opencl", "verify_opencl_output"]

CC = "gcc"
CFLAGS = ("-O1", "-std=gnu99")
INSTALL_HINT = "apt-get install pocl-opencl-icd ocl-icd-opencl-dev, or make opencl"

# an empty folder of OpenCL vendors: the ICD loader then finds no platform
_NO_VENDORS = Path(tempfile.gettempdir()) / "ppcg-py-no-opencl-vendors"

_PROBE = """\
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
int main(void)
{
  cl_platform_id platform;
  cl_device_id device;
  cl_uint platforms = 0, devices = 0;
  if (clGetPlatformIDs(1, &platform, &platforms) != CL_SUCCESS || platforms == 0) {
    puts("no OpenCL platform (is an ICD such as pocl-opencl-icd installed?)");
    return 1;
  }
  if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, &devices) != CL_SUCCESS || devices == 0) {
    puts("the OpenCL platform has no device");
    return 1;
  }
  return 0;
}
"""


@functools.cache
def opencl_unavailable() -> str | None:
    """Why no OpenCL program can be built and run here, or None when one can: a small
    program that includes CL/cl.h, links -lOpenCL and finds a device."""
    with tempfile.TemporaryDirectory(prefix="ppcg-opencl-probe-") as tmp:
        source, exe = Path(tmp) / "probe.c", Path(tmp) / "probe"
        source.write_text(_PROBE)
        try:
            run_tool([CC, source, "-o", exe, "-lOpenCL"], timeout=120)
        except BuildError as exc:
            first = next((line for line in exc.stderr.splitlines() if "error" in line), exc.stderr.strip())
            return f"cannot build an OpenCL program ({first.strip()[:200]}); {INSTALL_HINT}"
        try:
            proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120, check=False)
        except subprocess.TimeoutExpired:
            return "finding an OpenCL device timed out"
        if proc.returncode != 0:
            return f"{(proc.stdout + proc.stderr).strip() or 'no OpenCL device'}; {INSTALL_HINT}"
    return None


def build_opencl(host: Path, exe: Path, *, c_sources: Sequence[str | Path], include_dirs: Sequence[str],
                 defines: Sequence[str], cflags: Sequence[str] = CFLAGS, timeout: float = 900) -> Path:
    """gcc HOST C_SOURCES -lOpenCL -lm -o EXE; BuildError on failure."""
    run_tool([CC, *cflags, *preprocessor_flags(include_dirs, defines), host, *c_sources, "-o", exe,
              "-lOpenCL", "-lm"], timeout=timeout)
    return exe


def run_opencl(exe: Path, args: Sequence[str] = (), *, timeout: float = 300,
               keep_stderr: bool = True, device: bool = True) -> subprocess.CompletedProcess[str]:
    """Run the program from its folder (where NAME_kernel.cl is); a timeout is exit status 124.
    `device`: every SCoP runs its device code; else the program finds no OpenCL platform
    (the ICD loader is pointed at an empty folder of vendors), and its SCoPs take their host
    paths."""
    argv = [str(exe), *args]
    env = {**os.environ, "PPCG_PY_DEVICE": "gpu"}
    if not device:
        env = {**os.environ, "OCL_ICD_VENDORS": str(_NO_VENDORS)}
        env.pop("PPCG_PY_DEVICE", None)
        _NO_VENDORS.mkdir(parents=True, exist_ok=True)
    try:
        return subprocess.run(argv, cwd=exe.parent, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE if keep_stderr else subprocess.DEVNULL,
                              text=True, timeout=timeout, check=False, env=env)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(argv, 124, "", f"timed out after {timeout:g} s")


def verify_opencl_output(cfg: VerifyConfig, out_dir: Path, expected: Dump,
                         steps: Steps) -> dict[str, tuple[str, ...]]:
    """Build NAME_host.c with -lOpenCL beside NAME_kernel.cl, run it once on the OpenCL
    runtime, and compare (as order "opencl")."""
    host = out_dir / f"{cfg.source.stem}_host.c"
    if not host.exists():
        steps.fail("ppcg", f"exited 0 but wrote no {host.name}")
        return {}
    if (why := opencl_unavailable()) is not None:
        steps.fail("opencl", f"no OpenCL runtime: {why}")
        return {}
    exe = out_dir / cfg.source.stem
    try:
        with steps.step("opencl build"):
            # the original's own folder too: its quoted #includes are found there, and so here
            include_dirs = (*cfg.include_dirs, str(cfg.source.resolve().parent))
            build_opencl(host, exe, c_sources=cfg.extra_c_sources, include_dirs=include_dirs,
                         defines=cfg.all_defines, timeout=cfg.compile_timeout)
    except BuildError as exc:
        steps.fail("opencl build", exc.stderr)
        return {}
    rtol, atol = tolerance_for(cfg.data_type)
    found: dict[str, tuple[str, ...]] = {}
    runs = [("opencl", True)] + ([("opencl host path", False)] if "ppcg_py_on_device(" in host.read_text() else [])
    for name, device in runs:
        with steps.step(f"run {name}"):
            proc = run_opencl(exe, cfg.program_args, timeout=cfg.run_timeout, device=device)
        (out_dir.parent / f"{name.replace(' ', '-')}.stderr").write_text(proc.stderr)
        actual = dump_of(steps, f"run {name}", proc, cfg.output)
        if actual is not None:
            found[name] = tuple(compare_dumps(expected, actual, rtol=rtol, atol=atol))
    return found
