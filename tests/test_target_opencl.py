"""--target=opencl: NAME_host.c and NAME_kernel.cl, built with gcc -lOpenCL and run on
the OpenCL runtime installed (PoCL runs OpenCL on the CPU; `make opencl` installs it),
compared with gcc's build of the original. Without a runtime the runs skip and say why;
what the files hold is checked either way.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from ppcg_py.verify.harness import VerifyConfig, run_ppcg, verify
from ppcg_py.verify.opencl import opencl_unavailable

from polybench_cases import kernel_config

SKELETON = """#include <math.h>
#include <stdio.h>
#define N 37
#define M 29

{FUNCTION}

static void dump(const char *name, const {TYPE} *v, int count)
{
  fprintf(stderr, "begin dump: %s\\n", name);
  for (int k = 0; k < count; k++) fprintf(stderr, "%0.17g\\n", (double) v[k]);
  fprintf(stderr, "end   dump: %s\\n", name);
}

int main(void)
{
  static {TYPE} A[N][M], B[N][M], x[N];
  {TYPE} s = 0;
  for (int i = 0; i < N; i++) {
    x[i] = (i % 5) / 5.0;
    for (int j = 0; j < M; j++) {
      A[i][j] = ((i * 7 + j * 3) % 11) / 11.0;
      B[i][j] = ((i + 2 * j) % 13) / 13.0;
    }
  }
  {CALL};
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\n");
  dump("A", &A[0][0], N * M); dump("B", &B[0][0], N * M); dump("x", x, N); dump("s", &s, 1);
  fprintf(stderr, "==END   DUMP_ARRAYS==\\n");
  return 0;
}
"""

FUNCTION = "static void compute(int n, int m, double A[N][M], double B[N][M], double x[N], double *s)"
CALL = "compute(N - 3, M - 4, A, B, x, &s)"

PROGRAMS = {
    # a matrix product: A's tile in __local memory between barriers, B's elements in
    # private registers (gemm's shape)
    "matmul": """
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      B[i][j] *= 0.5;
      for (int k = 0; k < m; k++)
        B[i][j] += A[i][k] * A[j][k];
    }
#pragma endscop
}""",
    # a scalar the device writes and the host reads after the SCoP: a 1-element buffer
    "device_scalar": """
{
  double t;
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i][j] = A[i][j] + B[i][j];
  t = 0.0;
  for (int j = 0; j < m; j++)
    t += A[2][j];
  B[0][0] = t;
  for (int i = 0; i < n; i++)
    x[i] = x[i] * t;
#pragma endscop
}""",
    # scalars the host computes: kernel arguments by value (adi's shape)
    "host_scalars": """
{
  double a, b;
#pragma scop
  a = 1.0 / n;
  b = a * 3.0 + m;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      B[i][j] = a * A[i][j] + b;
#pragma endscop
}""",
    # 1-D: a stencil over time (a host loop around the launches, its iterator an argument)
    "stencil": """
{
#pragma scop
  for (int t = 0; t < 6; t++) {
    for (int i = 1; i < n - 1; i++)
      x[i] = (x[i - 1] + x[i] + x[i + 1]) / 3.0;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < m; j++)
        A[i][j] = A[i][j] + x[i] * (t + 1);
  }
#pragma endscop
}""",
}

VLA = ("static void compute(int n, int m, double A[n + 3][m + 4], double B[n + 3][m + 4], double x[n + 3], "
       "double *s)")
FLOAT_MATH = """
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      B[i][j] = sqrtf(A[i][j] + 1.0f) + fabsf(B[i][j] - 0.5f) * expf(-A[i][j]);
#pragma endscop
}"""

# a * b - a * b is exactly 0 in C; fused into fma(a, b, -(a * b)) it is the rounding
# error of a * b (about 1e-18 for these values), which the factor lifts past any tolerance
CONTRACTION = """
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      B[i][j] = (A[i][j] * B[i][j] - A[i][j] * B[i][j]) * 1e30;
#pragma endscop
}"""

NO_RUNTIME = opencl_unavailable()
needs_runtime = pytest.mark.skipif(NO_RUNTIME is not None, reason=f"no OpenCL runtime: {NO_RUNTIME}")


def _source(tmp_path: Path, body: str, *, function: str = FUNCTION, data_type: str = "double") -> Path:
    path = tmp_path / "prog.c"
    text = SKELETON.replace("{FUNCTION}", function + "\n" + body).replace("{CALL}", CALL)
    path.write_text(text.replace("{TYPE}", data_type).replace("double", data_type))
    return path


def _config(source: Path, *args: str, data_type: str = "double") -> VerifyConfig:
    return VerifyConfig(source=source, ppcg_args=args, target="opencl", data_type=data_type)


def _compile(tmp_path: Path, source: Path, *args: str) -> tuple[str, str]:
    out = tmp_path / "out"
    out.mkdir()
    proc = subprocess.run([sys.executable, "-m", "ppcg_py", "--target=opencl", *args, "--output-dir", str(out),
                           str(source)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["prog_host.c", "prog_kernel.cl"]
    return (out / "prog_host.c").read_text(), (out / "prog_kernel.cl").read_text()


# -- what the files hold (no runtime needed) ---------------------------------------
def test_kernel_file_speaks_opencl(tmp_path):
    host, kernel = _compile(tmp_path, _source(tmp_path, PROGRAMS["matmul"]), "--sizes", "ppcg")
    assert kernel.count("#pragma OPENCL EXTENSION cl_khr_fp64 : enable") == 1
    assert re.search(r"__kernel void kernel0\(__global double \*B, __global double \*A, int n, int m\)", kernel)
    assert "int b0 = get_group_id(1), b1 = get_group_id(0);" in kernel
    assert "int t0 = get_local_id(1), t1 = get_local_id(0);" in kernel
    assert re.search(r"__local double shared_A\[\d+\]\[\d+\];", kernel)
    assert re.search(r"\n  double private_B\[\d+\]\[\d+\];", kernel)
    assert "barrier(CLK_LOCAL_MEM_FENCE);" in kernel
    assert not re.search(r"__syncthreads|__shared__|blockIdx|threadIdx|__global__", kernel)
    # host: one buffer per device array, the launch as global = grid x block, local = block
    assert "#include <CL/cl.h>" in host and "cuda" not in host.lower()
    assert re.search(r"dev_B = ppcg_opencl_buffer\(&dev_ocl, 37 \* 29 \* sizeof\(double\)\);", host)
    assert "size_t k0_local[2] = {16, 32};" in host
    assert re.search(r"size_t k0_global\[2\] = \{.*\* 16, .*\* 32\};", host)
    assert "clEnqueueNDRangeKernel(dev_ocl.queue, dev_ocl_kernel[0], 2, NULL, k0_global, k0_local" in host
    assert "clEnqueueWriteBufferRect" in host and "clEnqueueReadBufferRect" in host
    calls = re.findall(r"\b(cl[A-Z]\w*)\(", host.split("#define openclCheckReturn")[1])
    unchecked = [line for line in host.splitlines() if re.search(r"\bcl(Enqueue|SetKernelArg|Release)\w*\(", line)
                 and "openclCheckReturn(" not in line]
    assert calls and not unchecked, unchecked


def test_kernel_file_turns_contraction_off(tmp_path):
    """OpenCL C may fuse a * b + c into an fma; the original's gcc build does not."""
    for data_type in ("double", "float"):
        (tmp_path / data_type).mkdir()
        _, kernel = _compile(tmp_path / data_type, _source(tmp_path / data_type, CONTRACTION, data_type=data_type))
        assert kernel.count("#pragma OPENCL FP_CONTRACT OFF") == 1
        assert kernel.index("#pragma OPENCL FP_CONTRACT OFF") < kernel.index("__kernel")


def test_host_scalars_are_arguments_by_value(tmp_path):
    host, kernel = _compile(tmp_path, _source(tmp_path, PROGRAMS["host_scalars"]))
    assert re.search(r"__kernel void kernel0\(.*double a, double b\)", kernel)
    assert re.search(r"clSetKernelArg\(dev_ocl_kernel\[0\], \d+, sizeof\(double\), &a\)", host)
    assert "dev_a" not in host


def test_device_scalar_is_a_one_element_buffer(tmp_path):
    host, _ = _compile(tmp_path, _source(tmp_path, PROGRAMS["device_scalar"]))
    assert re.search(r"dev_t = ppcg_opencl_buffer\(&dev_ocl, sizeof\(double\)\);", host)


def test_float_math_uses_the_overloaded_names(tmp_path):
    _, kernel = _compile(tmp_path, _source(tmp_path, FLOAT_MATH, data_type="float"))
    assert "sqrt(" in kernel and "fabs(" in kernel and "exp(" in kernel
    assert not re.search(r"\b(sqrtf|fabsf|expf)\(", kernel)
    assert "sqrt((float) " in kernel          # C's sqrtf converts its argument to float
    assert "cl_khr_fp64" not in kernel


def test_double_math_converts_its_arguments_as_c_does(tmp_path):
    """C's `fabs(i)` of an int and `sin(x)` of a float compute in double, where OpenCL's
    overloads would not know which to pick, or would pick the float function."""
    program = """
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      B[i][j] = sin(A[i][j]) + sqrt(fabs(i - 9));
#pragma endscop
}
"""
    _, kernel = _compile(tmp_path, _source(tmp_path, program, data_type="float"))
    assert re.search(r"sin\(\(double\) ", kernel) and re.search(r"fabs\(\(double\) \(", kernel)
    assert "cl_khr_fp64" in kernel


def test_embedded_kernel_source(tmp_path):
    host, kernel = _compile(tmp_path, _source(tmp_path, PROGRAMS["matmul"]), "--opencl-embed-kernel-code")
    assert "static const char ppcg_opencl_kernel_source[] =" in host
    assert '  "__kernel void kernel0(__global double *B' in host
    assert "fopen" not in host


def test_include_files_and_compiler_options(tmp_path):
    host, kernel = _compile(tmp_path, _source(tmp_path, PROGRAMS["matmul"]), "--opencl-include-file=a.h",
                            "--opencl-include-file=sub/b.h", '--opencl-compiler-options=-DX="y z" -cl-mad-enable')
    assert '#include "a.h"\n#include "sub/b.h"\n' in kernel
    assert r'ppcg_opencl_start(&dev_ocl, "prog_kernel.cl", "-DX=\"y z\" -cl-mad-enable", 1);' in host


def test_cli_lists_the_target():
    proc = subprocess.run([sys.executable, "-m", "ppcg_py", "--help"], capture_output=True, text=True, check=False)
    assert re.search(r"--target \{[a-z,]*opencl[a-z,]*\}", proc.stdout), proc.stdout
    assert "--opencl-embed-kernel-code" in proc.stdout


# -- run on the OpenCL runtime ------------------------------------------------------
@needs_runtime
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_verifies(name, tmp_path):
    report = verify(_config(_source(tmp_path, PROGRAMS[name])), tmp_path / "work")
    assert report.ok, report.summary()
    assert list(report.mismatches) == ["opencl", "opencl host path"]   # the device code, then no platform


@needs_runtime
def test_variable_length_array_parameters(tmp_path):
    """The host file is C: VLA parameters stay as they are (CUDA needs its wrapper functions)."""
    source = _source(tmp_path, PROGRAMS["matmul"], function=VLA)
    report = verify(_config(source), tmp_path / "work")
    assert report.ok, report.summary()
    host = (tmp_path / "work" / "generated" / "prog_host.c").read_text()
    assert "double A[n + 3][m + 4]" in host and "clEnqueueNDRangeKernel" in host


@needs_runtime
def test_float_math_verifies(tmp_path):
    report = verify(_config(_source(tmp_path, FLOAT_MATH, data_type="float"), data_type="float"),
                    tmp_path / "work")
    assert report.ok, report.summary()


@needs_runtime
def test_products_round_as_in_c(tmp_path):
    """Without FP_CONTRACT OFF, PoCL fuses the product into the subtraction and B holds
    values near 1e12 where C computes zeros."""
    report = verify(_config(_source(tmp_path, CONTRACTION)), tmp_path / "work")
    assert report.ok, report.summary()


@needs_runtime
def test_embedded_kernel_needs_no_kernel_file(tmp_path):
    def without_kernel_file(cfg, out_dir):
        proc = run_ppcg(cfg, out_dir)
        (out_dir / "prog_kernel.cl").unlink()
        return proc

    cfg = _config(_source(tmp_path, PROGRAMS["matmul"]), "--opencl-embed-kernel-code")
    report = verify(cfg, tmp_path / "work", compiler=without_kernel_file)
    assert report.ok, report.summary()


@needs_runtime
def test_include_file_and_options_reach_the_build(tmp_path):
    """The included file stops the build unless the options define the macro it checks."""
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "check.h").write_text("#ifndef PPCG_FLAG\n#error PPCG_FLAG not defined\n#endif\n")
    source = _source(tmp_path, PROGRAMS["matmul"])
    options = f"--opencl-compiler-options=-I{tmp_path / 'inc'} -DPPCG_FLAG=1"
    report = verify(_config(source, "--opencl-include-file=check.h", options), tmp_path / "good")
    assert report.ok, report.summary()
    broken = verify(_config(source, "--opencl-include-file=check.h", f"--opencl-compiler-options=-I{tmp_path / 'inc'}"),
                    tmp_path / "bad")
    assert not broken.ok
    message = broken.summary()
    assert "building the OpenCL kernels prog_kernel.cl failed" in message, message
    assert "PPCG_FLAG not defined" in message and "CL_BUILD_PROGRAM_FAILURE" in message, message


@needs_runtime
def test_missing_kernel_file_is_a_clear_error(tmp_path):
    def without_kernel_file(cfg, out_dir):
        proc = run_ppcg(cfg, out_dir)
        (out_dir / "prog_kernel.cl").unlink()
        return proc

    report = verify(_config(_source(tmp_path, PROGRAMS["matmul"])), tmp_path / "work", compiler=without_kernel_file)
    assert not report.ok
    assert "cannot read the OpenCL kernels prog_kernel.cl" in report.summary()


@needs_runtime
@pytest.mark.parametrize("kernel", ["gemm", "jacobi-2d", "lu", "gramschmidt-real"])
def test_polybench_verifies(kernel, tmp_path):
    """gramschmidt-real (the suite's rank-deficient shapes) agrees only when products and
    sums round as in C: with contraction on, R and Q differ by up to 5 in value."""
    report = verify(kernel_config(kernel, dataset="MINI", target="opencl"), tmp_path)
    assert report.ok, report.summary()


@needs_runtime
def test_harness_rejects_a_wrong_kernel(tmp_path):
    """Negative control: shift one subscript of the generated kernel by one element."""
    def wrong_compiler(cfg, out_dir):
        proc = run_ppcg(cfg, out_dir)
        kernel = out_dir / "gemm_kernel.cl"
        changed, count = re.subn(r"\bB\[", "B[1 + ", kernel.read_text(), count=1)
        assert count == 1
        kernel.write_text(changed)
        return proc

    report = verify(kernel_config("gemm", dataset="MINI", target="opencl"), tmp_path, compiler=wrong_compiler)
    assert not report.ok and report.mismatches.get("opencl"), report.summary()
