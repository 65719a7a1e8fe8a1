"""ppcg-py's cache folder (ppcg_py/cache.py) and the output templates kept there: the
outputs are the same with the cache, without it, and where it cannot be written."""
from __future__ import annotations

from pathlib import Path

import pytest

from ppcg_py.cache import cache_folder, made_folder
from ppcg_py.cli import main

ROOT = Path(__file__).resolve().parents[1]
JACOBI = ROOT / "polybench" / "stencils" / "jacobi-2d" / "jacobi-2d.c"


def test_the_folder_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("PPCG_PY_CACHE_DIR", str(tmp_path))
    assert cache_folder("part") == tmp_path / "part"
    monkeypatch.setenv("PPCG_PY_CACHE_DIR", "")
    assert cache_folder("part") is None and made_folder("part") is None
    monkeypatch.delenv("PPCG_PY_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_folder("part") == tmp_path / "xdg" / "ppcg-py" / "part"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")          # not absolute: ignored, as the spec says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_folder("part") == tmp_path / "home" / ".cache" / "ppcg-py" / "part"


def _outputs(tmp_path: Path, name: str) -> dict[str, bytes]:
    out = tmp_path / name
    out.mkdir()
    assert main(["-I", str(ROOT / "polybench" / "utilities"), "--output-dir", str(out), str(JACOBI)]) == 0
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


@pytest.mark.parametrize("cache", ["none", "fresh", "warm", "unwritable"])
def test_the_outputs_do_not_depend_on_the_cache(cache, tmp_path, monkeypatch):
    monkeypatch.setenv("PPCG_PY_CACHE_DIR", "")
    expected = _outputs(tmp_path, "plain")
    if cache == "unwritable":
        (tmp_path / "a_file").write_text("")
        monkeypatch.setenv("PPCG_PY_CACHE_DIR", str(tmp_path / "a_file"))
    elif cache != "none":
        monkeypatch.setenv("PPCG_PY_CACHE_DIR", str(tmp_path / "cache"))
        if cache == "warm":
            _outputs(tmp_path, "first")
            assert list((tmp_path / "cache" / "templates").glob("*/*.cache"))
            assert list((tmp_path / "cache" / "cxx-prefix").glob("*/prefix.h.gch"))
    assert _outputs(tmp_path, "cached") == expected


def test_a_damaged_compiled_template_is_compiled_again(tmp_path, monkeypatch):
    monkeypatch.setenv("PPCG_PY_CACHE_DIR", str(tmp_path / "cache"))
    expected = _outputs(tmp_path, "first")
    for kept in (tmp_path / "cache" / "templates").glob("*/*.cache"):
        kept.write_bytes(kept.read_bytes()[:20])
    assert _outputs(tmp_path, "again") == expected
