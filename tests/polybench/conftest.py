"""Fixtures of the experiment-script tests (python -m polybench).

The script lives in the top-level `polybench` package, which is not installed:
the repository root goes on sys.path so the tests also run under a bare `pytest`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pbscript_support import make_fake_root  # noqa: E402


@pytest.fixture(scope="session")
def fake_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_fake_root(tmp_path_factory.mktemp("polybench-4.2.1"))
