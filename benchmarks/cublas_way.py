"""The cuBLAS way: PolyBench's BLAS-shaped kernels as CUDA programs made of cuBLAS calls.

For issue 35, the GPU benchmark (benchmarks/gpu_ways.py --cublas) sets ppcg-py's
kernel times beside a vendor library's: cuBLAS is the bar that a compiler's gemm,
syrk or gemv can be measured against. Each program here is the kernel's own PolyBench
source with its SCoP (`#pragma scop` ... `#pragma endscop`) replaced by code that
copies the arrays to the device, computes the same thing with cuBLAS's v2 API, and
copies back every array the SCoP writes. So the program prints PolyBench's dump
(compared with gcc's) and PolyBench's time, and, built with -DPPCG_PY_TIMING, one
`ppcg-py timing: cublas: 1 launches, ...` line for all the calls of the SCoP and the
copies' lines, as ppcg-py's `--timing` prints them (ppcg_py_timing.h).

How the calls read PolyBench's row-major arrays: cuBLAS is column-major, and a
row-major `X[rows][cols]` is, to it, the cols x rows matrix X^T whose leading
dimension is the declared row length (PolyBench's macro NJ, ..., padding included:
`PPCG_LD(X)`); the counts are the run-time sizes (`_PB_NI`, ...). So a row-major product
C = A B is computed as C^T = B^T A^T (gemm with the operands swapped), a row-major
lower triangle is a column-major upper one, and a row-major matrix-vector product
A x is a transposed gemv. Each kernel's mapping is spelled out beside it in MAPPINGS.

The cuBLAS handle is created before main (a static initializer), so cublasCreate,
which brings up the CUDA context and cuBLAS (about 100 ms on a GPU), stays out of
PolyBench's timer. Every CUDA and cuBLAS status is checked. Double is PolyBench's
default; -DDATA_TYPE_IS_FLOAT selects the cublasS* routines, and int has no cuBLAS
routines (#error).
"""
from __future__ import annotations

import re
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from polybench.kernels import source_path  # noqa: E402

__all__ = ["KERNELS", "MAPPINGS", "TIMING_HEADER", "program_source", "scop_replacement", "write_program"]

TIMING_HEADER = "ppcg_py_timing.h"
#: The name the calls' time is recorded under.
TIMED_NAME = "cublas"


@dataclass(frozen=True)
class Array:
    """An array the calls use: `rows` is its run-time extent in its first dimension (the
    rows copied, each with its declared length), `rank` 1 or 2. `host` is the PolyBench
    array it is copied from or to, when the device buffer is another one's (trmm's output)."""

    name: str
    rank: int
    rows: str
    copy_in: bool
    copy_out: bool
    host: str = ""

    @property
    def host_name(self) -> str:
        return self.host or self.name


def _in(name: str, rank: int, rows: str) -> Array:
    return Array(name, rank, rows, copy_in=True, copy_out=False)


def _out(name: str, rank: int, rows: str, host: str = "") -> Array:
    """Written by the calls before any read (or with beta 0): not copied in."""
    return Array(name, rank, rows, copy_in=False, copy_out=True, host=host)


def _inout(name: str, rank: int, rows: str) -> Array:
    return Array(name, rank, rows, copy_in=True, copy_out=True)


@dataclass(frozen=True)
class Mapping:
    """A kernel's SCoP as cuBLAS calls. `calls` are (routine, arguments after the handle):
    an argument that names an array becomes its device pointer and its leading dimension
    (2-D) or stride 1 (1-D); N/T, UPPER/LOWER, LEFT/RIGHT, UNIT are cuBLAS's enums;
    `one` and `zero` are constants. `reads` says how, in a comment of the program."""

    what: str
    reads: str
    arrays: tuple[Array, ...]
    calls: tuple[tuple[str, str], ...]


MAPPINGS: dict[str, Mapping] = {
    "gemm": Mapping(
        "C = alpha A B + beta C",
        "C^T = alpha B^T A^T + beta C^T",
        (_inout("C", 2, "_PB_NI"), _in("A", 2, "_PB_NI"), _in("B", 2, "_PB_NK")),
        (("gemm", "N N _PB_NJ _PB_NI _PB_NK &alpha B A &beta C"),)),
    "2mm": Mapping(
        "tmp = alpha A B; D = tmp C + beta D",
        "tmp^T = alpha B^T A^T; D^T = C^T tmp^T + beta D^T",
        (_in("A", 2, "_PB_NI"), _in("B", 2, "_PB_NK"), _in("C", 2, "_PB_NJ"), _out("tmp", 2, "_PB_NI"),
         _inout("D", 2, "_PB_NI")),
        (("gemm", "N N _PB_NJ _PB_NI _PB_NK &alpha B A zero tmp"),
         ("gemm", "N N _PB_NL _PB_NI _PB_NJ one C tmp &beta D"))),
    "3mm": Mapping(
        "E = A B; F = C D; G = E F",
        "E^T = B^T A^T; F^T = D^T C^T; G^T = F^T E^T",
        (_in("A", 2, "_PB_NI"), _in("B", 2, "_PB_NK"), _in("C", 2, "_PB_NJ"), _in("D", 2, "_PB_NM"),
         _out("E", 2, "_PB_NI"), _out("F", 2, "_PB_NJ"), _out("G", 2, "_PB_NI")),
        (("gemm", "N N _PB_NJ _PB_NI _PB_NK one B A zero E"),
         ("gemm", "N N _PB_NL _PB_NJ _PB_NM one D C zero F"),
         ("gemm", "N N _PB_NL _PB_NI _PB_NJ one F E zero G"))),
    "syrk": Mapping(
        "C = alpha A A^T + beta C on the lower triangle (j <= i); the rest of C is left alone",
        "C's lower triangle is C^T's upper one, and A^T is m x n, so syrk(UPPER, T)",
        (_inout("C", 2, "_PB_N"), _in("A", 2, "_PB_N")),
        (("syrk", "UPPER T _PB_N _PB_M &alpha A &beta C"),)),
    "syr2k": Mapping(
        "C = alpha (A B^T + B A^T) + beta C on the lower triangle (j <= i)",
        "C's lower triangle is C^T's upper one, and A^T, B^T are m x n, so syr2k(UPPER, T)",
        (_inout("C", 2, "_PB_N"), _in("A", 2, "_PB_N"), _in("B", 2, "_PB_N")),
        (("syr2k", "UPPER T _PB_N _PB_M &alpha A B &beta C"),)),
    "symm": Mapping(
        "C = alpha S B + beta C, S symmetric, given by A's lower triangle (A[i][k], k <= i)",
        "C^T = alpha B^T S + beta C^T (side RIGHT), S given by A^T's upper triangle",
        (_inout("C", 2, "_PB_M"), _in("A", 2, "_PB_M"), _in("B", 2, "_PB_M")),
        (("symm", "RIGHT UPPER _PB_N _PB_M &alpha A B &beta C"),)),
    "trmm": Mapping(
        "B = alpha L^T B, L unit lower triangular from A's strict lower part",
        "B^T = alpha B^T L (side RIGHT), L^T given by A^T's strict upper triangle, so "
        "trmm(RIGHT, UPPER, T, UNIT); out of place into B_out, copied back into B",
        (_in("A", 2, "_PB_M"), _in("B", 2, "_PB_M"), _out("B_out", 2, "_PB_M", host="B")),
        (("trmm", "RIGHT UPPER T UNIT _PB_N _PB_M &alpha A B B_out"),)),
    "atax": Mapping(
        "tmp = A x; y = A^T tmp",
        "A^T is n x m: tmp = (A^T)^T x (op T), y = A^T tmp (op N)",
        (_in("A", 2, "_PB_M"), _in("x", 1, "_PB_N"), _out("tmp", 1, "_PB_M"), _out("y", 1, "_PB_N")),
        (("gemv", "T _PB_N _PB_M one A x zero tmp"),
         ("gemv", "N _PB_N _PB_M one A tmp zero y"))),
    "bicg": Mapping(
        "s = A^T r; q = A p",
        "A^T is m x n: s = A^T r (op N), q = (A^T)^T p (op T)",
        (_in("A", 2, "_PB_N"), _in("r", 1, "_PB_N"), _in("p", 1, "_PB_M"), _out("s", 1, "_PB_M"),
         _out("q", 1, "_PB_N")),
        (("gemv", "N _PB_M _PB_N one A r zero s"),
         ("gemv", "T _PB_M _PB_N one A p zero q"))),
    "mvt": Mapping(
        "x1 = x1 + A y_1; x2 = x2 + A^T y_2",
        "x1 = (A^T)^T y_1 + x1 (op T), x2 = A^T y_2 + x2 (op N)",
        (_in("A", 2, "_PB_N"), _in("y_1", 1, "_PB_N"), _in("y_2", 1, "_PB_N"), _inout("x1", 1, "_PB_N"),
         _inout("x2", 1, "_PB_N")),
        (("gemv", "T _PB_N _PB_N one A y_1 one x1"),
         ("gemv", "N _PB_N _PB_N one A y_2 one x2"))),
    "gesummv": Mapping(
        "tmp = A x; y = alpha tmp + beta B x",
        "tmp = (A^T)^T x, y = beta (B^T)^T x (op T), then y = alpha tmp + y (axpy)",
        (_in("A", 2, "_PB_N"), _in("B", 2, "_PB_N"), _in("x", 1, "_PB_N"), _out("tmp", 1, "_PB_N"),
         _out("y", 1, "_PB_N")),
        (("gemv", "T _PB_N _PB_N one A x zero tmp"),
         ("gemv", "T _PB_N _PB_N &beta B x zero y"),
         ("axpy", "_PB_N &alpha tmp y"))),
    "gemver": Mapping(
        "A = A + u1 v1^T + u2 v2^T; x = x + beta A^T y + z; w = w + alpha A x",
        "A^T += v1 u1^T + v2 u2^T (ger), x = beta A^T y + x (op N), x = z + x (axpy), "
        "w = alpha (A^T)^T x + w (op T)",
        (_inout("A", 2, "_PB_N"), _in("u1", 1, "_PB_N"), _in("v1", 1, "_PB_N"), _in("u2", 1, "_PB_N"),
         _in("v2", 1, "_PB_N"), _in("y", 1, "_PB_N"), _in("z", 1, "_PB_N"), _inout("x", 1, "_PB_N"),
         _inout("w", 1, "_PB_N")),
        (("ger", "_PB_N _PB_N one v1 u1 A"),
         ("ger", "_PB_N _PB_N one v2 u2 A"),
         ("gemv", "N _PB_N _PB_N &beta A y one x"),
         ("axpy", "_PB_N one z x"),
         ("gemv", "T _PB_N _PB_N &alpha A x one w"))),
}

#: The kernels with a cuBLAS way.
KERNELS: tuple[str, ...] = tuple(MAPPINGS)

_ENUMS = {
    "N": "CUBLAS_OP_N", "T": "CUBLAS_OP_T",
    "UPPER": "CUBLAS_FILL_MODE_UPPER", "LOWER": "CUBLAS_FILL_MODE_LOWER",
    "LEFT": "CUBLAS_SIDE_LEFT", "RIGHT": "CUBLAS_SIDE_RIGHT",
    "UNIT": "CUBLAS_DIAG_UNIT", "NON_UNIT": "CUBLAS_DIAG_NON_UNIT",
    "one": "&ppcg_one", "zero": "&ppcg_zero",
}

# After the kernel's own includes (its header decides DATA_TYPE_IS_*).
_PRELUDE = """\
/* ---- the cuBLAS way (benchmarks/cublas_way.py) ---- */
#if defined(DATA_TYPE_IS_INT)
#error "the cuBLAS way has no int routines: build with DATA_TYPE_IS_DOUBLE (the default) or DATA_TYPE_IS_FLOAT"
#elif defined(DATA_TYPE_IS_FLOAT)
#define PPCG_CUBLAS(routine) cublasS##routine
#else
#define PPCG_CUBLAS(routine) cublasD##routine
#endif

/* The declared row length of a row-major 2-D array: its leading dimension to cuBLAS. */
#define PPCG_LD(X) ((int) (sizeof((X)[0]) / sizeof((X)[0][0])))

static void ppcg_cublas_fail(const char *call, const char *why)
{
  fprintf(stderr, "cuBLAS way: %s failed: %s\\n", call, why);
  exit(EXIT_FAILURE);
}
#define PPCG_CUDA_CHECK(call) \\
  do { \\
    cudaError_t ppcg_status = (call); \\
    if (ppcg_status != cudaSuccess) \\
      ppcg_cublas_fail(#call, cudaGetErrorString(ppcg_status)); \\
  } while (0)
#define PPCG_CUBLAS_CHECK(call) \\
  do { \\
    cublasStatus_t ppcg_status = (call); \\
    if (ppcg_status != CUBLAS_STATUS_SUCCESS) \\
      ppcg_cublas_fail(#call, cublasGetStatusString(ppcg_status)); \\
  } while (0)

/* -DPPCG_PY_TIMING: the copies and the calls (one record, "cublas") timed with CUDA
   events, as ppcg-py's --timing times its own; otherwise nothing is added. */
#ifdef PPCG_PY_TIMING
#define PPCG_MEMCPY ppcg_py_timed_memcpy
#define PPCG_TIMING_START() ppcg_py_timing_start()
#define PPCG_TIMING_STOP() ppcg_py_timing_kernel("{timed}")
#else
#define PPCG_MEMCPY cudaMemcpy
#define PPCG_TIMING_START() ((void) 0)
#define PPCG_TIMING_STOP() ((void) 0)
#endif

/* Created before main, so that cublasCreate (the CUDA context and cuBLAS's own set-up,
   about 100 ms on a GPU) stays out of PolyBench's timer. It lives as long as the
   process: destroying it at exit could come after the CUDA runtime's own teardown. */
static cublasHandle_t ppcg_cublas_create(void)
{
  cublasHandle_t handle;
  PPCG_CUBLAS_CHECK(cublasCreate(&handle));
  return handle;
}
static cublasHandle_t ppcg_cublas_handle = ppcg_cublas_create();
/* ---- end of the cuBLAS way's prelude ---- */
""".replace("{timed}", TIMED_NAME)

_SCOP = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+scop\b.*?^[ \t]*#[ \t]*pragma[ \t]+endscop\b[^\n]*", re.S | re.M)
_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include\b[^\n]*\n", re.M)
# `int i, j, k;` or `DATA_TYPE temp2;` before the SCoP, in the kernel's function
_DECLARATION = re.compile(r"^[ \t]*(?:int|DATA_TYPE)[ \t]+(\w+(?:[ \t]*,[ \t]*\w+)*)[ \t]*;", re.M)


def _arguments(mapping: Mapping, text: str) -> list[str]:
    """The C arguments (after the handle) a call's compact argument list stands for."""
    arrays = {a.name: a for a in mapping.arrays}
    out: list[str] = []
    for token in text.split():
        if token in arrays:
            a = arrays[token]
            out += [f"d_{a.name}", f"PPCG_LD({a.host_name})" if a.rank == 2 else "1"]
        else:
            out.append(_ENUMS.get(token, token))
    return out


def _bytes(a: Array) -> str:
    return f"(size_t) {a.rows} * sizeof({a.host_name}[0])"


def _copy(a: Array, to_device: bool) -> str:
    host, device = a.host_name, f"d_{a.name}"
    dst, src = (device, host) if to_device else (host, device)
    kind = "cudaMemcpyHostToDevice" if to_device else "cudaMemcpyDeviceToHost"
    return f"PPCG_CUDA_CHECK(PPCG_MEMCPY({dst}, {src}, {_bytes(a)}, {kind}));"


def _call(mapping: Mapping, routine: str, text: str) -> list[str]:
    """A checked call, its arguments wrapped at about 100 columns."""
    head = f"PPCG_CUBLAS_CHECK(PPCG_CUBLAS({routine})(ppcg_cublas_handle"
    align = " " * head.index("ppcg_cublas_handle")
    lines, line = [], head
    for arg in _arguments(mapping, text):
        if len(line) + len(arg) + 2 > 100:
            lines.append(line + ",")
            line = align + arg
        else:
            line += ", " + arg
    return [*lines, line + "));"]


def scop_replacement(kernel_name: str, indent: str = "  ", unused: tuple[str, ...] = ()) -> str:
    """The code that stands for the kernel's SCoP: allocate, copy in, call cuBLAS between
    the timing events, copy out, free. `unused`: the function's variables that only the
    SCoP used (cast to void, against nvcc's warnings)."""
    mapping = MAPPINGS[kernel_name]
    used = " ".join(args for _, args in mapping.calls).split()
    constants = [f"ppcg_{c} = SCALAR_VAL({v})" for c, v in (("one", "1.0"), ("zero", "0.0")) if c in used]
    body = [" ".join(f"(void) {name};" for name in unused)] if unused else []
    body.append(f"DATA_TYPE {', '.join('*d_' + a.name for a in mapping.arrays)};")
    if constants:
        body.append(f"const DATA_TYPE {', '.join(constants)};")
    body += [f"PPCG_CUDA_CHECK(cudaMalloc((void **) &d_{a.name}, {_bytes(a)}));" for a in mapping.arrays]
    body += [_copy(a, True) for a in mapping.arrays if a.copy_in]
    body.append("PPCG_TIMING_START();")
    for routine, args in mapping.calls:
        body += _call(mapping, routine, args)
    body.append("PPCG_TIMING_STOP();")
    body += [_copy(a, False) for a in mapping.arrays if a.copy_out]
    body += [f"PPCG_CUDA_CHECK(cudaFree(d_{a.name}));" for a in mapping.arrays]
    inner = indent + "  "
    comment = textwrap.wrap(f"The SCoP as cuBLAS calls (benchmarks/cublas_way.py): {mapping.what}; "
                            f"cuBLAS is column-major and sees each array transposed: {mapping.reads}. */", 96 - len(indent))
    return "\n".join([
        *(f"{indent}{'/* ' if k == 0 else '   '}{line}" for k, line in enumerate(comment)),
        f"{indent}{{",
        *(inner + line for line in body),
        f"{indent}}}",
    ])


def program_source(kernel_name: str) -> str:
    """The kernel's PolyBench source as a CUDA program whose SCoP cuBLAS computes."""
    if kernel_name not in MAPPINGS:
        raise KeyError(f"no cuBLAS way for {kernel_name!r}; there is one for {', '.join(KERNELS)}")
    text = source_path(kernel_name).read_text()
    scops = list(_SCOP.finditer(text))
    includes = list(_INCLUDE.finditer(text))
    if len(scops) != 1 or not includes or includes[-1].end() > scops[0].start():
        raise ValueError(f"{kernel_name}: expected one SCoP after the includes")
    scop = scops[0]
    indent = re.match(r"[ \t]*", scop.group()).group()
    top = (f"/* PolyBench's {kernel_name} with its SCoP computed by cuBLAS: benchmarks/cublas_way.py wrote this. */\n"
           "#include <cuda_runtime.h>\n#include <cublas_v2.h>\n"
           f'#include "{TIMING_HEADER}"\n')
    cut = includes[-1].end()
    # a SCoP's pragma stands at the margin; its code goes where the function's body is
    indent = indent or "  "
    body = text[text.rfind("\n{", 0, scop.start()):scop.start()]
    unused = tuple(name.strip() for names in _DECLARATION.findall(body) for name in names.split(","))
    return (top + text[:cut] + "\n" + _PRELUDE + text[cut:scop.start()]
            + scop_replacement(kernel_name, indent, unused) + text[scop.end():])


def write_program(kernel_name: str, folder: Path) -> Path:
    """Write `folder/KERNEL_host.cu` and the timing header beside it; return the program's path."""
    from ppcg_py.codegen.timing import standalone_timing_header
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / TIMING_HEADER).write_text(standalone_timing_header())
    program = folder / f"{kernel_name}_host.cu"
    program.write_text(program_source(kernel_name))
    return program
