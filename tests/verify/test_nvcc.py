"""nvcc checks and ptxas resource reports."""

from pathlib import Path

import pytest

from ppcg_py.verify.nvcc import KernelResources, nvcc_available, nvcc_resources, parse_ptxas_info

DATA = Path(__file__).parent / "data"

PTXAS = """\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z7kernel0PdS_i' for 'sm_90'
ptxas info    : Function properties for _Z7kernel0PdS_i
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 8192 bytes smem, 380 bytes cmem[0]
ptxas info    : Compiling entry function '_Z8kernel12Pf' for 'sm_90'
ptxas info    : Function properties for _Z8kernel12Pf
    16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 255 registers, used 0 barriers, 364 bytes cmem[0]
ptxas info    : Compiling entry function 'plain_c' for 'sm_90'
ptxas info    : Used 8 registers, 360 bytes cmem[0]
"""


def test_parse_ptxas_info():
    assert parse_ptxas_info(PTXAS) == {
        "kernel0": KernelResources(40, 8192),
        "kernel12": KernelResources(255, 0, 16, 8, 4),
        "plain_c": KernelResources(8, 0),
    }


@pytest.mark.skipif(not nvcc_available(), reason="nvcc is not installed")
def test_resources_of_the_reduction_kernel():
    resources = nvcc_resources(DATA / "reduce" / "cuda" / "reduce_kernel.cu")
    assert list(resources) == ["kernel0"]
    assert resources["kernel0"].shared_bytes == 256 * 8
    assert 0 < resources["kernel0"].registers <= 255
