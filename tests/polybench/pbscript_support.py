"""Helpers of the experiment-script tests: a PolyBench-like tree built from our kernels.

(Not in conftest.py: tests/verify has a conftest too, and `import conftest`
would find whichever was loaded first.)
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HAVE_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None


def plot_args() -> list[str]:
    """No plot when matplotlib is missing: the script would (rightly) report an error."""
    return [] if HAVE_MATPLOTLIB else ["--no-plot"]


def copy_kernel(root: Path, category: str, name: str, new_name: str | None = None) -> Path:
    """Copy one of the project's kernels into a PolyBench-like tree, optionally renamed."""
    src_dir = ROOT / "polybench" / category / name
    new_name = new_name or name
    dst_dir = root / category / new_name
    dst_dir.mkdir(parents=True)
    for suffix in (".c", ".h"):
        text = (src_dir / f"{name}{suffix}").read_text()
        (dst_dir / f"{new_name}{suffix}").write_text(text.replace(name, new_name))
    return dst_dir / f"{new_name}.c"


def make_fake_root(root: Path) -> Path:
    """A tree laid out like the official PolyBench/C 4.2.1 checkout, from our own files:
    utilities/polybench.{h,c}, stencils/jacobi-1d, linear-algebra/solvers/durbin, and
    stencils/broken-1d, a jacobi-1d whose SCoP holds a `return`, which ppcg-py rejects."""
    (root / "utilities").mkdir(parents=True)
    for name in ("polybench.h", "polybench.c"):
        shutil.copy(ROOT / "polybench" / "utilities" / name, root / "utilities" / name)
    copy_kernel(root, "stencils", "jacobi-1d")
    copy_kernel(root, "linear-algebra/solvers", "durbin")
    broken = copy_kernel(root, "stencils", "jacobi-1d", "broken-1d")
    text = broken.read_text()
    assert "#pragma scop\n" in text
    broken.write_text(text.replace("#pragma scop\n", "#pragma scop\n  if (n < 0) return;\n"))
    (root / "README").write_text("not a kernel\n")
    return root
