"""A precompiled header for the C++ check's system-header prefix.

`c_only.rejected_as_cxx` asks g++ whether the file compiles as C++. Most of that
question's time goes to the C headers as C++ sees them: libstdc++'s `<math.h>` pulls
in `<cmath>`'s templates, 70 of the 90 ms a PolyBench file takes. Those headers are
the same for every file of a build, so the file's leading run of `#include <...>`,
`#define` and `#undef` lines (with the blank and comment lines among them) is
compiled once into a precompiled header, kept in a cache folder, and given to g++
with `-include`; the file itself goes in with those lines blanked, so g++ reads the
same tokens in the same order and the lines keep their numbers.

The cache entry is named by everything that can change the header: the compiler
(path, size, time), the working folder (relative `-I` folders), the flags and the
prefix's text; and it lists every file the header read (and the `-I` folders, where
a header added later would be found first), with its size and time, checked before
each use (GCC does not check them itself). Quoted includes end the
prefix: they are searched beside the input first, which the cached header is not.
The folder is ppcg-py's cache (`ppcg_py/cache.py`); at most `KEPT_ENTRIES` headers
(15 MB each for `<math.h>`) stay there.
Where the folder cannot be written, another process is building the same entry, or
the build fails, the check runs without it: slower, never different.
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path

from ..cache import cache_folder

KEPT_ENTRIES = 8
_DIRECTIVE = re.compile(rb"\s*#\s*(include\s*<[^>\n]*>|define\s|undef\s)")


def system_prefix(lines: list[bytes]) -> tuple[int, bytes]:
    """How many of the first `lines` form a prefix that can be precompiled, and its
    directives (the header's text: without the comments, so that files whose licence
    or description differ share it). The prefix is blank and comment lines and
    `#include <...>` / `#define` / `#undef` directives (none with a quote, a
    continuation line or code after a comment), ending after the last `#include`;
    (0, b"") where there is no such include."""
    in_comment, end, directives = False, 0, []
    for number, line in enumerate(lines, 1):
        code, in_comment = _without_comments(line, in_comment)
        if code is None or b'"' in line or line.rstrip().endswith(b"\\"):
            break
        if code.strip() and not _DIRECTIVE.match(code):
            break
        if code.strip():
            directives.append(code.strip())
        if _DIRECTIVE.match(code) and b"include" in code.split(b"<", 1)[0]:
            end, count, open_after = len(directives), number, in_comment
    if end == 0 or open_after:      # the prefix must close its own comments
        return 0, b""
    return count, b"".join(d + b"\n" for d in directives[:end])


def _without_comments(line: bytes, in_comment: bool) -> tuple[bytes | None, bool]:
    """The line's text outside comments, and whether a block comment is open after it;
    None where a comment starts after code (kept out of the prefix)."""
    kept = b""
    rest = line
    while rest:
        if in_comment:
            close = rest.find(b"*/")
            if close < 0:
                return kept, True
            rest, in_comment = rest[close + 2:], False
            continue
        starts = [i for i in (rest.find(b"/*"), rest.find(b"//")) if i >= 0]
        if not starts:
            return kept + rest, False
        first = min(starts)
        if rest[:first].strip() and not _DIRECTIVE.match(kept + rest[:first]):
            return None, False
        kept += rest[:first] + b" "       # a comment is a space
        if rest[first:first + 2] == b"//":
            return kept, False
        rest, in_comment = rest[first + 2:], True
    return kept, in_comment


def precompiled(compiler: str, flags: tuple[str, ...], prefix: bytes) -> str | None:
    """The path of a header holding `prefix` with its precompiled form beside it (to
    give g++ as `-include`), built where missing or stale; None where the cache cannot
    serve (no folder, a build under way elsewhere, a failed build)."""
    folder = cache_folder("cxx-prefix")
    if folder is None:
        return None
    entry = folder / _entry_name(compiler, flags, prefix)
    try:
        if _fresh(entry):
            os.utime(entry / "depends")
            return str(entry / "prefix.h")
        entry.mkdir(parents=True, exist_ok=True)
        with open(entry / "lock", "wb") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return None
            built = _build(entry, compiler, flags, prefix)
        if built:
            _evict(folder)
        return str(entry / "prefix.h") if built else None
    except OSError:
        return None


def _entry_name(compiler: str, flags: tuple[str, ...], prefix: bytes) -> str:
    real = os.path.realpath(compiler)
    stat = os.stat(real)
    key = "\0".join([real, str(stat.st_size), str(stat.st_mtime_ns), os.getcwd(), *flags])
    return hashlib.sha256(key.encode("utf-8", "surrogateescape") + b"\0" + prefix).hexdigest()[:24]


def _fresh(entry: Path) -> bool:
    """Whether the entry is complete and every file its header read is unchanged."""
    try:
        listed = (entry / "depends").read_text("utf-8", "surrogateescape").splitlines()
    except OSError:
        return False
    for line in listed:
        size, mtime, path = line.split(" ", 2)
        try:
            stat = os.stat(path)
        except OSError:
            return False
        if (stat.st_size, stat.st_mtime_ns) != (int(size), int(mtime)):
            return False
    return bool(listed) and (entry / "prefix.h.gch").is_file()


def _build(entry: Path, compiler: str, flags: tuple[str, ...], prefix: bytes) -> bool:
    """Compile the prefix into `prefix.h.gch` and list what it read (`depends`, written
    last: its presence means the entry is whole)."""
    (entry / "depends").unlink(missing_ok=True)
    pid = os.getpid()
    (entry / f"prefix.h.{pid}").write_bytes(prefix)
    os.replace(entry / f"prefix.h.{pid}", entry / "prefix.h")
    gch, deps = entry / f"prefix.h.gch.{pid}", entry / f"deps.{pid}"
    command = [compiler, "-x", "c++-header", *flags, "-MD", "-MF", str(deps), "-o", str(gch), str(entry / "prefix.h")]
    try:
        done = subprocess.run(command, capture_output=True, timeout=120)
        if done.returncode != 0 or not gch.is_file():
            return False
        read = [p for p in _make_dependencies(deps.read_text("utf-8", "surrogateescape"))
                if os.path.abspath(p) != str((entry / "prefix.h").absolute())]
        # and the -I folders: a header added there later would be found before the ones read
        read += [f[2:] for f in flags if f.startswith("-I") and os.path.isdir(f[2:])]
        listed = "".join(f"{os.stat(p).st_size} {os.stat(p).st_mtime_ns} {p}\n" for p in read)
        os.replace(gch, entry / "prefix.h.gch")
        temporary = entry / f"depends.{pid}"
        temporary.write_text(listed, "utf-8", "surrogateescape")
        os.replace(temporary, entry / "depends")
        return True
    except (OSError, subprocess.TimeoutExpired):
        return False
    finally:
        gch.unlink(missing_ok=True)
        deps.unlink(missing_ok=True)


def _make_dependencies(text: str) -> list[str]:
    """The prerequisites of a make rule as `-MD` writes it (escaped spaces kept)."""
    body = text.replace("\\\n", " ").split(": ", 1)[1] if ": " in text else ""
    words = re.findall(r"(?:\\.|[^\s\\])+", body)
    return [re.sub(r"\\(.)", r"\1", w) for w in words]


def _evict(folder: Path) -> None:
    """Keep the `KEPT_ENTRIES` most recently used entries."""
    entries = []
    for entry in folder.iterdir():
        try:
            entries.append(((entry / "depends").stat().st_mtime_ns, entry))
        except OSError:
            continue
    for _, entry in sorted(entries, reverse=True)[KEPT_ENTRIES:]:
        shutil.rmtree(entry, ignore_errors=True)
