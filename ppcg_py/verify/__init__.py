"""Verification harness: build the compiler's CUDA output for a CPU emulation of
CUDA, run it under several thread orders, and compare with the original program."""

from .dump import DumpError, compare_dumps, parse_dump, tolerance_for
from .emulate import build_emulated, run_emulated
from .harness import StageFailure, VerifyConfig, VerifyReport, verify
from .launch import LaunchSyntaxError, rewrite_launches
from .nvcc import KernelResources, nvcc_available, nvcc_check, nvcc_resources
from .tools import BuildError

__all__ = [
    "BuildError",
    "DumpError",
    "KernelResources",
    "LaunchSyntaxError",
    "StageFailure",
    "VerifyConfig",
    "VerifyReport",
    "build_emulated",
    "compare_dumps",
    "nvcc_available",
    "nvcc_check",
    "nvcc_resources",
    "parse_dump",
    "rewrite_launches",
    "run_emulated",
    "tolerance_for",
    "verify",
]
