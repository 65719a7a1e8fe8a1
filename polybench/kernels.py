"""Table of ppcg-py's own PolyBench/C 4.2.1 kernels (no third-party deps).

Each entry gives the kernel's name, category folder, default data type, the
path of its ``.c`` file relative to the repository root, and its sizes for
the five datasets (MINI, SMALL, MEDIUM, LARGE, EXTRALARGE).

Typical use::

    from polybench.kernels import KERNELS, by_name, compile_flags, POLYBENCH_C
    k = by_name("gemm")
    cmd = ["gcc", *compile_flags(k, "MINI"), str(REPO_ROOT / k.path),
           str(REPO_ROOT / POLYBENCH_C), "-lm"]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Mapping, Union

#: The repository root (the folder holding ``polybench/``).
REPO_ROOT: Path = Path(__file__).resolve().parent.parent

#: The five datasets, smallest first.
DATASETS: tuple[str, ...] = ("MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE")

#: The dataset used when none is given (as in the suite).
DEFAULT_DATASET = "LARGE"

#: Common utilities, relative to the repository root.
UTILITIES_DIR = "polybench/utilities"
POLYBENCH_H = "polybench/utilities/polybench.h"
POLYBENCH_C = "polybench/utilities/polybench.c"


@dataclass(frozen=True)
class Kernel:
    name: str
    category: str
    data_type: str  # "double", "float" or "int"
    path: str  # the kernel's .c, relative to the repository root
    sizes: Mapping[str, Mapping[str, int]] = field(hash=False, compare=False)

    @property
    def directory(self) -> str:
        """The kernel's folder, relative to the repository root."""
        return str(Path(self.path).parent)

    @property
    def header(self) -> str:
        """The kernel's .h, relative to the repository root."""
        return str(Path(self.path).with_suffix(".h"))

    @property
    def size_names(self) -> tuple[str, ...]:
        """Names of the size macros, e.g. ("NI", "NJ", "NK")."""
        return tuple(self.sizes["MINI"].keys())

    def sizes_of(self, dataset: str) -> Mapping[str, int]:
        return self.sizes[_dataset_key(dataset)]


_SIZES_TABLE: tuple[tuple[str, str, str, tuple[str, ...], tuple[tuple[int, ...], ...]], ...] = (
    # name, category, data type, size names, (MINI, SMALL, MEDIUM, LARGE, EXTRALARGE)
    ("correlation", "datamining", "double", ("M", "N"),
     ((28, 32), (80, 100), (240, 260), (1200, 1400), (2600, 3000))),
    ("covariance", "datamining", "double", ("M", "N"),
     ((28, 32), (80, 100), (240, 260), (1200, 1400), (2600, 3000))),
    ("gemm", "linear-algebra/blas", "double", ("NI", "NJ", "NK"),
     ((20, 25, 30), (60, 70, 80), (200, 220, 240), (1000, 1100, 1200), (2000, 2300, 2600))),
    ("gemver", "linear-algebra/blas", "double", ("N",),
     ((40,), (120,), (400,), (2000,), (4000,))),
    ("gesummv", "linear-algebra/blas", "double", ("N",),
     ((30,), (90,), (250,), (1300,), (2800,))),
    ("symm", "linear-algebra/blas", "double", ("M", "N"),
     ((20, 30), (60, 80), (200, 240), (1000, 1200), (2000, 2600))),
    ("syr2k", "linear-algebra/blas", "double", ("M", "N"),
     ((20, 30), (60, 80), (200, 240), (1000, 1200), (2000, 2600))),
    ("syrk", "linear-algebra/blas", "double", ("M", "N"),
     ((20, 30), (60, 80), (200, 240), (1000, 1200), (2000, 2600))),
    ("trmm", "linear-algebra/blas", "double", ("M", "N"),
     ((20, 30), (60, 80), (200, 240), (1000, 1200), (2000, 2600))),
    ("2mm", "linear-algebra/kernels", "double", ("NI", "NJ", "NK", "NL"),
     ((16, 18, 22, 24), (40, 50, 70, 80), (180, 190, 210, 220), (800, 900, 1100, 1200),
      (1600, 1800, 2200, 2400))),
    ("3mm", "linear-algebra/kernels", "double", ("NI", "NJ", "NK", "NL", "NM"),
     ((16, 18, 20, 22, 24), (40, 50, 60, 70, 80), (180, 190, 200, 210, 220),
      (800, 900, 1000, 1100, 1200), (1600, 1800, 2000, 2200, 2400))),
    ("atax", "linear-algebra/kernels", "double", ("M", "N"),
     ((38, 42), (116, 124), (390, 410), (1900, 2100), (1800, 2200))),
    ("bicg", "linear-algebra/kernels", "double", ("M", "N"),
     ((38, 42), (116, 124), (390, 410), (1900, 2100), (1800, 2200))),
    ("doitgen", "linear-algebra/kernels", "double", ("NQ", "NR", "NP"),
     ((8, 10, 12), (20, 25, 30), (40, 50, 60), (140, 150, 160), (220, 250, 270))),
    ("mvt", "linear-algebra/kernels", "double", ("N",),
     ((40,), (120,), (400,), (2000,), (4000,))),
    ("cholesky", "linear-algebra/solvers", "double", ("N",),
     ((40,), (120,), (400,), (2000,), (4000,))),
    ("durbin", "linear-algebra/solvers", "double", ("N",),
     ((40,), (120,), (400,), (2000,), (4000,))),
    ("gramschmidt", "linear-algebra/solvers", "double", ("M", "N"),
     ((20, 30), (60, 80), (200, 240), (1000, 1200), (2000, 2600))),
    ("lu", "linear-algebra/solvers", "double", ("N",),
     ((40,), (120,), (400,), (2000,), (4000,))),
    ("ludcmp", "linear-algebra/solvers", "double", ("N",),
     ((40,), (120,), (400,), (2000,), (4000,))),
    ("trisolv", "linear-algebra/solvers", "double", ("N",),
     ((40,), (120,), (400,), (2000,), (4000,))),
    ("deriche", "medley", "float", ("W", "H"),
     ((64, 64), (192, 128), (720, 480), (4096, 2160), (7680, 4320))),
    ("floyd-warshall", "medley", "int", ("N",),
     ((60,), (180,), (500,), (2800,), (5600,))),
    ("nussinov", "medley", "int", ("N",),
     ((60,), (180,), (500,), (2500,), (5500,))),
    ("adi", "stencils", "double", ("TSTEPS", "N"),
     ((20, 20), (40, 60), (100, 200), (500, 1000), (1000, 2000))),
    ("fdtd-2d", "stencils", "double", ("TMAX", "NX", "NY"),
     ((20, 20, 30), (40, 60, 80), (100, 200, 240), (500, 1000, 1200), (1000, 2000, 2600))),
    ("heat-3d", "stencils", "double", ("TSTEPS", "N"),
     ((20, 10), (40, 20), (100, 40), (500, 120), (1000, 200))),
    ("jacobi-1d", "stencils", "double", ("TSTEPS", "N"),
     ((20, 30), (40, 120), (100, 400), (500, 2000), (1000, 4000))),
    ("jacobi-2d", "stencils", "double", ("TSTEPS", "N"),
     ((20, 30), (40, 90), (100, 250), (500, 1300), (1000, 2800))),
    ("seidel-2d", "stencils", "double", ("TSTEPS", "N"),
     ((20, 40), (40, 120), (100, 400), (500, 2000), (1000, 4000))),
)


def _make(name: str, category: str, data_type: str, names: tuple[str, ...],
          values: tuple[tuple[int, ...], ...]) -> Kernel:
    sizes = MappingProxyType({
        ds: MappingProxyType(dict(zip(names, vals)))
        for ds, vals in zip(DATASETS, values)
    })
    return Kernel(name=name, category=category, data_type=data_type,
                  path=f"polybench/{category}/{name}/{name}.c", sizes=sizes)


#: All 30 kernels, in the order of the PolyBench documentation's table.
KERNELS: tuple[Kernel, ...] = tuple(_make(*row) for row in _SIZES_TABLE)

# Kernels where ours departs from the suite, kept a second time as the suite has them, so
# that the experiment and `make polybench-check` also run what users will run. Same row
# format as above; each folder holds NAME.c and NAME.h.
_VARIANTS_TABLE: tuple[tuple[str, str, str, tuple[str, ...], tuple[tuple[int, ...], ...]], ...] = (
    # gramschmidt's own shapes (A, Q: M x N, R: N x N with M < N): rank-deficient, so
    # it checks that results round as C's do (ours is N x M and well conditioned)
    ("gramschmidt-real", "linear-algebra/solvers", "double", ("M", "N"),
     ((20, 30), (60, 80), (200, 240), (1000, 1200), (2000, 2600))),
)

#: The variants, after the 30 in the project's suite (``polybench.suite.project_suite``).
VARIANTS: tuple[Kernel, ...] = tuple(_make(*row) for row in _VARIANTS_TABLE)

_BY_NAME: Mapping[str, Kernel] = MappingProxyType({k.name: k for k in (*KERNELS, *VARIANTS)})


def by_name(name: str) -> Kernel:
    """The kernel or variant called ``name`` (e.g. "gemm", "fdtd-2d"); KeyError if none."""
    return _BY_NAME[name]


def _dataset_key(dataset: str) -> str:
    key = dataset.strip().upper()
    if key.startswith("-D"):
        key = key[2:]
    if key.endswith("_DATASET"):
        key = key[: -len("_DATASET")]
    if key not in DATASETS:
        raise ValueError(f"unknown dataset {dataset!r}; expected one of {DATASETS}")
    return key


def dataset_macro(dataset: str) -> str:
    """``"mini"`` / ``"MINI"`` / ``"MINI_DATASET"`` -> ``"MINI_DATASET"``."""
    return f"{_dataset_key(dataset)}_DATASET"


def compile_flags(kernel: Union[Kernel, str], dataset: str = DEFAULT_DATASET,
                  root: Union[str, Path, None] = None) -> list[str]:
    """Preprocessor flags to compile ``kernel`` at ``dataset``.

    Returns ``["-I<root>/polybench/utilities", "-I<root>/<kernel dir>",
    "-D<DATASET>_DATASET"]``. Paths are absolute (under REPO_ROOT) unless
    ``root`` is given, in which case they are ``root`` joined with the
    repository-relative paths (``root="."`` gives relative paths).
    """
    k = by_name(kernel) if isinstance(kernel, str) else kernel
    base = REPO_ROOT if root is None else Path(root)
    return [
        f"-I{base / UTILITIES_DIR}",
        f"-I{base / k.directory}",
        f"-D{dataset_macro(dataset)}",
    ]


def source_path(kernel: Union[Kernel, str]) -> Path:
    """Absolute path of the kernel's .c file."""
    k = by_name(kernel) if isinstance(kernel, str) else kernel
    return REPO_ROOT / k.path


def polybench_c_path() -> Path:
    """Absolute path of polybench.c."""
    return REPO_ROOT / POLYBENCH_C


__all__ = [
    "DATASETS", "DEFAULT_DATASET", "KERNELS", "Kernel", "POLYBENCH_C", "POLYBENCH_H",
    "REPO_ROOT", "UTILITIES_DIR", "VARIANTS", "by_name", "compile_flags", "dataset_macro",
    "polybench_c_path", "source_path",
]
