"""Build generated CUDA code for the CPU emulation (cuda_emu.h) and run it.

Each .cu file is copied with its launches rewritten and the emulation header
forced in first (so a user's own min/max macros cannot break it), then
everything is compiled by g++ in one call.  `#line` keeps diagnostics
pointing at the original .cu file.

The header costs about 0.4 s per file (mostly <math.h> in C++), so it is
precompiled once per g++ version and flag set into a cache dir
(PPCG_EMU_CACHE_DIR, default ~/.cache/ppcg-py/cuda-emu; PPCG_EMU_PCH=0 turns
this off).  g++ 12 crashes when a PCH built with other -O flags is used, so
the PCH is built with exactly the flags of the build; g++ itself ignores it
when a -D on the command line changes what the header means.
"""

from __future__ import annotations

import functools
import hashlib
import os
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from .launch import LaunchSyntaxError, rewrite_launches
from .tools import BuildError, preprocessor_flags, run_program, run_tool

__all__ = ["EMU_HEADER", "EMU_INCLUDE", "ORDERS", "build_emulated", "run_emulated"]

EMU_HEADER = Path(__file__).resolve().parent / "cuda_emu" / "cuda_emu.h"
EMU_INCLUDE = EMU_HEADER.parent / "include"
ORDERS = ("forward", "reverse", "shuffle")
CXX = os.environ.get("PPCG_EMU_CXX", "g++")
# -fno-ivopts: GCC 12's induction-variable optimisation drops a loop of the shape isl
# prints for a reversed loop, `for (c0 = -n + 1; c0 <= 0; c0 += 2) A[-2 * c0] = A[-c0];`
# (it runs once for n = 2; gcc -O1 runs it never; -fwrapv or -fno-ivopts mend it,
# clang is right; fuzz 2813:263, tests/verify/test_emulation.py): the emulation is
# there to check ppcg-py's kernels, not gcc
CXXFLAGS = ("-std=gnu++17", "-O1", *(("-fno-ivopts",) if "g++" in Path(CXX).name else ()))


def _cache_dir() -> Path:
    if configured := os.environ.get("PPCG_EMU_CACHE_DIR"):
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "ppcg-py" / "cuda-emu"


@functools.cache
def _compiler_identity() -> str:
    return run_tool([CXX, "--version"], timeout=60).stdout


def _emulation_header(flags: tuple[str, ...]) -> Path:
    """The header to include: a cached copy next to its PCH, or EMU_HEADER itself."""
    if os.environ.get("PPCG_EMU_PCH", "1") == "0":
        return EMU_HEADER
    text = EMU_HEADER.read_bytes()
    try:
        identity = [text, _compiler_identity().encode(), *map(str.encode, flags)]
        cached = _cache_dir() / hashlib.sha256(b"\0".join(identity)).hexdigest()[:24]
        header, pch = cached / EMU_HEADER.name, cached / (EMU_HEADER.name + ".gch")
        if not (header.exists() and pch.exists()):
            # Written under temporary names and renamed, for concurrent builds.
            cached.mkdir(parents=True, exist_ok=True)
            part = f".{os.getpid()}.part"
            header_part, pch_part = Path(f"{header}{part}"), Path(f"{pch}{part}")
            header_part.write_bytes(text)
            os.replace(header_part, header)
            run_tool([CXX, *flags, "-x", "c++-header", header, "-o", pch_part])
            os.replace(pch_part, pch)
        return header
    except (OSError, BuildError):
        return EMU_HEADER  # the build still works, only slower


def _c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _emulation_source(cu_file: Path, out_dir: Path, header: Path) -> Path:
    """Write cu_file as C++ for the emulation; return the new file."""
    try:
        # the input's bytes (a Latin-1 comment) as they are; a byte-order mark is only
        # skipped at the start of a file, and the prelude goes before it here
        text = cu_file.read_text(encoding="utf-8", errors="surrogateescape").removeprefix("\ufeff")
        body = rewrite_launches(text)
    except LaunchSyntaxError as exc:
        raise BuildError([CXX, str(cu_file)], f"{cu_file}: {exc}") from exc
    target = out_dir / (cu_file.stem + ".emu.cpp")
    prelude = f"#include {_c_string(str(header))}\n#line 1 {_c_string(str(cu_file))}\n"
    target.write_text(prelude + body, encoding="utf-8", errors="surrogateescape")
    return target


def build_emulated(
    cu_files: Sequence[str | Path],
    out_exe: str | Path,
    *,
    c_sources: Iterable[str | Path] = (),
    include_dirs: Iterable[str | Path] = (),
    defines: Iterable[str] = (),
    cflags: Iterable[str] = (),
    source_dir: str | Path | None = None,
    timeout: float = 600,
    plain_c_sources: Iterable[str | Path] = (),
) -> None:
    """Compile CUDA files plus C sources (as C++, like nvcc would) into a CPU program.

    The emulation's include dir comes first, so `<cuda_runtime.h>` and `<cuda.h>`
    resolve to it; then the dirs of the .cu files (for their headers), then
    `include_dirs`.  Rewritten sources go to `source_dir` (kept) or a temporary
    dir.  `plain_c_sources` are compiled as C by gcc (a host file that stays C, with
    variable-length array parameters C++ rejects).  Raises BuildError with the
    compiler's messages.
    """
    cu_paths = [Path(f).resolve() for f in cu_files]
    flags = (*CXXFLAGS, *cflags)
    header = _emulation_header(flags)
    with tempfile.TemporaryDirectory(prefix="ppcg-emu-") as tmp:
        src_dir = Path(source_dir) if source_dir is not None else Path(tmp)
        src_dir.mkdir(parents=True, exist_ok=True)
        sources = [_emulation_source(f, src_dir, header) for f in cu_paths]
        objects = []
        for k, c_file in enumerate(plain_c_sources):
            obj = src_dir / f"plain{k}.o"
            run_tool(["gcc", "-std=gnu99", "-O1", *preprocessor_flags(include_dirs, defines),
                      "-c", c_file, "-o", obj], timeout=timeout)
            objects.append(obj)
        cu_dirs = dict.fromkeys(f.parent for f in cu_paths)
        command = [
            CXX,
            *flags,
            *preprocessor_flags([EMU_INCLUDE, *cu_dirs, *include_dirs], defines),
            *sources,
            "-x",
            "c++",
            *c_sources,
            "-x",
            "none",
            *objects,
            "-o",
            out_exe,
            "-lm",
        ]
        run_tool(command, timeout=timeout)


def run_emulated(
    exe: str | Path,
    order: str = "forward",
    args: Sequence[str] = (),
    *,
    seed: int = 1,
    timeout: float = 300,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run an emulated program with the given fiber order; never raises on a bad exit."""
    if order not in ORDERS:
        raise ValueError(f"order must be one of {ORDERS}, not {order!r}")
    full_env = {**os.environ, **(env or {}), "PPCG_EMU_ORDER": order, "PPCG_EMU_SEED": str(seed)}
    return run_program([exe, *args], timeout=timeout, env=full_env)
