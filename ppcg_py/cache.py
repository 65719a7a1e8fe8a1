"""ppcg-py's cache folder: what is the same from one compilation to the next and costs
time to make again (the C++ check's precompiled system headers, the output templates'
compiled form).

The folder is `$PPCG_PY_CACHE_DIR` (empty: no cache), else `$XDG_CACHE_HOME/ppcg-py`
or `~/.cache/ppcg-py`. Whatever uses it must work the same without it: a folder that
cannot be made or written means no cache, never an error.
"""
from __future__ import annotations

import os
from pathlib import Path


def cache_folder(part: str) -> Path | None:
    """The folder for `part` (not made here); None where there is to be no cache."""
    chosen = os.environ.get("PPCG_PY_CACHE_DIR")
    if chosen is not None:
        return Path(chosen) / part if chosen else None
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):     # unset, empty or relative: the spec's default
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ppcg-py" / part if os.path.isabs(base) else None


def made_folder(part: str) -> Path | None:
    """The folder for `part`, made where missing; None where there is none or it cannot be made."""
    folder = cache_folder(part)
    if folder is None:
        return None
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder if os.access(folder, os.W_OK) else None
