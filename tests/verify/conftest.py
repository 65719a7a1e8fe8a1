"""Shared pieces of the verification harness tests.

tests/verify/data/<program>/ holds a PolyBench-style C program, the CUDA files
a correct compiler could write for it (cuda/), and variants that replace some
of those files with a bug (one folder per bug).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from ppcg_py.verify.harness import Compiler, VerifyConfig

DATA = Path(__file__).parent / "data"


def fake_compiler(
    program: str, variant: str | None = None, *, files: dict[str, str] | None = None
) -> Compiler:
    """A stand-in for ppcg-py that writes the hand-written CUDA files of `program`,
    then those of `variant`, then `files` (name -> text)."""

    def compile_(cfg: VerifyConfig, out_dir: Path) -> subprocess.CompletedProcess[str]:
        for folder in ["cuda", *([variant] if variant else [])]:
            for f in (DATA / program / folder).iterdir():
                shutil.copy(f, out_dir / f.name)
        for name, text in (files or {}).items():
            (out_dir / name).write_text(text)
        return subprocess.CompletedProcess(["fake-ppcg"], 0, "", "")

    return compile_


def program_config(program: str, **overrides: object) -> VerifyConfig:
    """The configuration checking DATA/<program>/<program>.c without nvcc."""
    settings: dict[str, object] = {
        "source": DATA / program / f"{program}.c",
        "include_dirs": (str(DATA / "common"),),
        "use_nvcc": False,
    }
    settings.update(overrides)
    return VerifyConfig(**settings)  # type: ignore[arg-type]


@pytest.fixture(name="fake_compiler")
def fixture_fake_compiler() -> Callable[..., Compiler]:
    return fake_compiler


@pytest.fixture(name="program_config")
def fixture_program_config() -> Callable[..., VerifyConfig]:
    return program_config
