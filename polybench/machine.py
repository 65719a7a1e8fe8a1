"""What the experiment ran on and with which compiler version.

Timings mean nothing without the machine, the GPU (or the fact that there was
none and the CUDA code ran in the CPU emulation) and the exact compiler
revision, so the report's header is built from these.
"""

from __future__ import annotations

import os
import platform
import subprocess
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from .kernels import REPO_ROOT

__all__ = ["Machine", "cpu_model", "describe_machine", "gpu_name", "ppcg_version"]


def _output(argv: list[str], cwd: Path | None = None, timeout: float = 30) -> str | None:
    """stdout of a command, or None when it is missing, fails or hangs."""
    try:
        proc = subprocess.run(
            argv, capture_output=True, text=True, timeout=timeout, cwd=cwd, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def gpu_name() -> str | None:
    """The first GPU `nvidia-smi -L` lists, or None when it fails (no GPU, no driver)."""
    listing = _output(["nvidia-smi", "-L"])
    if not listing:
        return None
    return listing.splitlines()[0].strip()


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo (the processor field elsewhere)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def ppcg_version() -> str:
    """ppcg-py's package version and git commit, `-dirty` when the tree has changes."""
    try:
        version = metadata.version("ppcg-py")
    except metadata.PackageNotFoundError:
        version = "unknown"
    commit = _output(["git", "rev-parse", "--short=12", "HEAD"], cwd=REPO_ROOT)
    if commit is None:
        return version
    dirty = _output(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO_ROOT)
    return f"{version} (git {commit}{'-dirty' if dirty else ''})"


@dataclass(frozen=True)
class Machine:
    uname: str
    cpu: str
    cores: int
    gpu: str | None  # None: no GPU, the generated code runs in the CPU emulation
    ppcg: str


def describe_machine(gpu: str | None) -> Machine:
    """The facts about this machine that the report's header states."""
    uname = _output(["uname", "-a"]) or " ".join(platform.uname())
    return Machine(uname, cpu_model(), os.cpu_count() or 1, gpu, ppcg_version())
