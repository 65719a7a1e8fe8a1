"""What ppcg-py knows of the GPUs it generates code for: the limits that decide tile,
block and grid sizes (`--gpu NAME`) and the rates the performance model uses.

Numbers are the vendors' published figures for each card (NVIDIA's architecture
whitepapers and the CUDA C++ Programming Guide's table of compute-capability
limits); docs/gpu-targets.md says where each comes from. `detect()` reads the
card of the machine the compiler runs on, when it has one.
"""
from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass


@dataclass(frozen=True)
class GpuTarget:
    name: str
    compute_capability: str
    sms: int                          # streaming multiprocessors
    threads_per_sm: int               # resident threads per SM
    blocks_per_sm: int                # resident blocks per SM
    registers_per_sm: int             # 32-bit registers
    shared_per_sm: int                # bytes of shared memory per SM (the most a carve-out gives)
    shared_per_block: int             # bytes a block may declare statically (`__shared__`)
    warp_size: int
    dram_bandwidth: float             # bytes per second
    fp64_flops: float                 # per second, without tensor cores
    fp32_flops: float                 # per second, without tensor cores
    dram_latency: float = 6e-7        # seconds from a load's issue to its data (loaded memory)
    launch_cost: float = 4e-6         # seconds a dependent kernel launch adds (launch + drain)
    host_bandwidth: float = 2.5e10    # bytes per second over PCIe 5 x16 (pageable copies are slower)
    max_threads_per_block: int = 1024
    max_grid: tuple[int, int, int] = (65535, 65535, 2**31 - 1)   # z, y, x

    @property
    def resident_threads(self) -> int:
        """Threads the whole device runs at once: one full wave."""
        return self.sms * self.threads_per_sm

    @property
    def banks(self) -> int:
        """Shared memory banks (4 bytes wide): one per lane of a warp."""
        return self.warp_size


# Static shared memory is capped at 48 KB per block on every card since Kepler; more
# needs dynamic shared memory and cudaFuncSetAttribute, which ppcg-py does not emit.
_STATIC_SHARED = 48 * 1024

GPUS: dict[str, GpuTarget] = {
    "A100": GpuTarget("A100", "8.0", sms=108, threads_per_sm=2048, blocks_per_sm=32, registers_per_sm=65536,
                      shared_per_sm=164 * 1024, shared_per_block=_STATIC_SHARED, warp_size=32,
                      dram_bandwidth=2.039e12, fp64_flops=9.7e12, fp32_flops=19.5e12),
    "H100": GpuTarget("H100", "9.0", sms=132, threads_per_sm=2048, blocks_per_sm=32, registers_per_sm=65536,
                      shared_per_sm=228 * 1024, shared_per_block=_STATIC_SHARED, warp_size=32,
                      dram_bandwidth=3.35e12, fp64_flops=34e12, fp32_flops=67e12),
    "H200": GpuTarget("H200", "9.0", sms=132, threads_per_sm=2048, blocks_per_sm=32, registers_per_sm=65536,
                      shared_per_sm=228 * 1024, shared_per_block=_STATIC_SHARED, warp_size=32,
                      dram_bandwidth=4.8e12, fp64_flops=34e12, fp32_flops=67e12),
    "L40S": GpuTarget("L40S", "8.9", sms=142, threads_per_sm=1536, blocks_per_sm=24, registers_per_sm=65536,
                      shared_per_sm=100 * 1024, shared_per_block=_STATIC_SHARED, warp_size=32,
                      dram_bandwidth=8.64e11, fp64_flops=1.43e12, fp32_flops=91.6e12),
}
DEFAULT_GPU = "H100"


def gpu_named(name: str) -> GpuTarget | None:
    """The card called `name` (case and an 'NVIDIA ' prefix ignored; 'H100 80GB HBM3'
    is an H100), or None."""
    words = name.upper().replace("NVIDIA", " ").split()
    for word in words:
        if word in GPUS:
            return GPUS[word]
    return None


def detect(timeout: float = 5.0) -> GpuTarget | None:
    """The first card `nvidia-smi` lists, when it is one of GPUS; None without a GPU."""
    if shutil.which("nvidia-smi") is None:
        return None
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = out.stdout.strip().splitlines() if out.returncode == 0 else []
    return gpu_named(lines[0]) if lines else None
