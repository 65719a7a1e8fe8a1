"""Which benchmarks to run: the project's own kernels, or those of a PolyBench/C checkout.

The experiment must run unchanged on the official PolyBench/C 4.2.1 suite, so a
benchmark is described only by where its files are (`<category>/<name>/<name>.c`
beside `<name>.h`, and `utilities/polybench.{h,c}` at the root), found by
walking the tree rather than looked up in a table.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .kernels import KERNELS, REPO_ROOT, UTILITIES_DIR, VARIANTS, by_name

__all__ = ["Benchmark", "SelectionError", "discover", "project_suite", "select"]

_DATA_TYPE = re.compile(r"#\s*define\s+DATA_TYPE_IS_(FLOAT|DOUBLE|INT)\b")


@dataclass(frozen=True)
class Benchmark:
    """One kernel's files: enough to build it with gcc, ppcg-py and the emulation."""

    name: str
    category: str  # e.g. "linear-algebra/blas"
    source: Path
    utilities: Path  # folder of polybench.h and polybench.c
    data_type: str  # "double", "float" or "int": chooses the comparison tolerance

    @property
    def include_dirs(self) -> tuple[str, str]:
        return str(self.utilities), str(self.source.parent)

    @property
    def polybench_c(self) -> Path:
        return self.utilities / "polybench.c"


class SelectionError(ValueError):
    """A --kernels entry names neither a kernel nor a category."""


def project_suite() -> list[Benchmark]:
    """The project's own 30 kernels (polybench/), in the documentation's order, then the
    variants written as the real suite has them (gramschmidt-real), which "all" runs too."""
    utilities = REPO_ROOT / UTILITIES_DIR
    return [
        Benchmark(k.name, k.category, REPO_ROOT / k.path, utilities, k.data_type)
        for k in (*KERNELS, *VARIANTS)
    ]


def _default_data_type(name: str, header: Path) -> str:
    """The kernel's type: the table's for a known kernel, else its header's default."""
    try:
        return by_name(name).data_type
    except KeyError:
        pass
    if header.exists() and (match := _DATA_TYPE.search(header.read_text(errors="replace"))):
        return match.group(1).lower()
    return "double"


def discover(root: str | Path) -> list[Benchmark]:
    """Every `<category>/<name>/<name>.c` under a PolyBench/C tree, sorted by path.

    Raises FileNotFoundError when `root/utilities/polybench.c` is missing: the
    tree is then not a PolyBench checkout and nothing could be built.
    """
    root = Path(root).resolve()
    utilities = root / "utilities"
    if not (utilities / "polybench.c").exists():
        raise FileNotFoundError(f"{root}: no utilities/polybench.c (not a PolyBench/C tree)")
    found = []
    for source in sorted(root.rglob("*.c")):
        folder = source.parent
        if folder == utilities or folder.name != source.stem:
            continue
        category = folder.parent.relative_to(root).as_posix()
        if category == ".":
            continue  # <root>/<name>/<name>.c: no category folder, not the suite's layout
        data_type = _default_data_type(source.stem, source.with_suffix(".h"))
        found.append(Benchmark(source.stem, category, source, utilities, data_type))
    return found


def _matches_category(benchmark: Benchmark, word: str) -> bool:
    """`stencils`, `linear-algebra`, `blas`, `linear-algebra/blas` all name categories."""
    parts = benchmark.category.split("/")
    return word == benchmark.category or word in parts


def select(benchmarks: Sequence[Benchmark], spec: str | Iterable[str]) -> list[Benchmark]:
    """The benchmarks named by a comma list of kernel and category names ("all" for all),
    without those named after a '-'.

    Keeps the suite's order and drops repeats; raises SelectionError naming
    the words that match nothing, with the names that would have.
    """
    words = [w.strip() for w in (spec.split(",") if isinstance(spec, str) else spec)]
    left_out = {w[1:] for w in words if w.startswith("-")}
    words = [w for w in words if w and not w.startswith("-")]
    if left_out:    # `all,-gramschmidt-real`: a name or category after '-' is left out
        return [b for b in select(benchmarks, words or ["all"])
                if not any(b.name == w or _matches_category(b, w) for w in left_out)]
    if not words or "all" in words:
        return list(benchmarks)
    unknown = [
        w for w in words if not any(b.name == w or _matches_category(b, w) for b in benchmarks)
    ]
    if unknown:
        categories = sorted({part for b in benchmarks for part in b.category.split("/")})
        raise SelectionError(
            f"unknown kernel or category: {', '.join(unknown)} "
            f"(kernels: {', '.join(b.name for b in benchmarks)}; "
            f"categories: {', '.join(categories)})"
        )
    return [b for b in benchmarks if any(b.name == w or _matches_category(b, w) for w in words)]


def chosen(root: str | Path | None, spec: str | Iterable[str]) -> list[Benchmark]:
    """The kernels `spec` names, from the suite under `root` (a PolyBench checkout) or
    the project's own; what `--polybench-root` and `--kernels` select in every script."""
    return select(discover(root) if root else project_suite(), spec)
