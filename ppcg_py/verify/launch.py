"""Rewrite CUDA launches `k<<<grid, block>>>(args)` into plain C++.

g++ cannot parse the triple-chevron syntax, so before the emulated build each
launch becomes `ppcg_emu_launch(grid, block, [&]() { k(args); })`, which
cuda_emu.h runs on CPU fibers.  The scan skips comments and string literals
and keeps every newline, so compiler messages keep their line numbers.
"""

from __future__ import annotations

from collections.abc import Iterator

__all__ = ["LaunchSyntaxError", "rewrite_launches"]

_OPEN = frozenset("([{")
_CLOSE = frozenset(")]}")


class LaunchSyntaxError(ValueError):
    """A `<<<` that does not start a launch this module understands."""


def _skip_literal(src: str, i: int) -> int:
    """If a comment or string/char literal starts at i, return the index just past it."""
    if src.startswith("//", i):
        end = src.find("\n", i)
        return len(src) if end < 0 else end
    if src.startswith("/*", i):
        end = src.find("*/", i + 2)
        if end < 0:
            raise LaunchSyntaxError("unterminated comment")
        return end + 2
    if src[i] in "\"'":
        quote, j = src[i], i + 1
        while j < len(src) and src[j] != quote:
            if src[j] == "\n":
                raise LaunchSyntaxError(f"unterminated literal at offset {i}")
            j += 2 if src[j] == "\\" else 1
        return j + 1
    return i


def _scan(src: str, i: int, end: int) -> Iterator[tuple[int, int]]:
    """Yield (index, nesting depth) of the characters of src[i:end] outside literals
    and comments; stop after a closing bracket at depth 0 (it closes an outer group)."""
    depth = 0
    while i < end:
        j = _skip_literal(src, i)
        if j != i:
            i = j
            continue
        c = src[i]
        yield i, depth
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            if depth == 0:
                return
            depth -= 1
        i += 1


def _find(src: str, i: int, stop: str) -> int:
    """Index of `stop` at nesting depth 0 from i on."""
    for k, depth in _scan(src, i, len(src)):
        if depth == 0 and src.startswith(stop, k):
            return k
    raise LaunchSyntaxError(f"missing {stop!r} after offset {i}")


def _split_top_level(src: str, i: int, end: int) -> list[str]:
    """Split src[i:end] at commas outside parentheses, brackets and braces."""
    commas = [k for k, depth in _scan(src, i, end) if depth == 0 and src[k] == ","]
    bounds = [i - 1, *commas, end]
    return [src[a + 1 : b] for a, b in zip(bounds, bounds[1:], strict=False)]


def _skip_space(src: str, i: int) -> int:
    while i < len(src):
        j = _skip_literal(src, i)
        if j != i:
            i = j
        elif src[i].isspace():
            i += 1
        else:
            break
    return i


def _callee_start(src: str, end: int) -> int:
    """Start of the (possibly ::-qualified) kernel name that ends before `end`."""
    i = end
    while i > 0 and src[i - 1].isspace():
        i -= 1
    name_end = i
    while i > 0 and (src[i - 1].isalnum() or src[i - 1] in "_:"):
        i -= 1
    name = src[i:name_end]
    if not name or name[0].isdigit() or not name.replace("::", "").replace("_", "x").isalnum():
        raise LaunchSyntaxError(f"no kernel name before '<<<' at offset {end}")
    return i


def _rewrite_one(src: str, chevron: int) -> tuple[str, int, int]:
    """Rewrite the launch whose `<<<` is at `chevron`: (replacement, start, end)."""
    start = _callee_start(src, chevron)
    config_end = _find(src, chevron + 3, ">>>")
    config = _split_top_level(src, chevron + 3, config_end)
    if not 2 <= len(config) <= 4 or not all(c.strip() for c in config):
        raise LaunchSyntaxError(f"launch configuration needs 2 to 4 arguments at offset {chevron}")
    paren = _skip_space(src, config_end + 3)
    if not src.startswith("(", paren):
        raise LaunchSyntaxError(f"missing argument list after '>>>' at offset {config_end}")
    close = _find(src, paren + 1, ")")
    name = src[start:chevron].rstrip()
    grid, block, *rest = config
    extra = "".join("," + c for c in rest)
    gap = src[config_end + 3 : paren] or " "  # keeps newlines and comments
    body = f"[&]() {{ {name}({src[paren + 1 : close]}); }}"
    return f"ppcg_emu_launch({grid},{block},{gap}{body}{extra})", start, close + 1


def rewrite_launches(source: str) -> str:
    """Return `source` with every `k<<<g, b[, shmem[, stream]]>>>(args)` made a plain call."""
    out: list[str] = []
    done = i = 0
    while i < len(source):
        j = _skip_literal(source, i)
        if j != i:
            i = j
            continue
        if source.startswith("<<<", i):
            text, start, end = _rewrite_one(source, i)
            if start < done:
                raise LaunchSyntaxError(f"overlapping launches at offset {i}")
            out += [source[done:start], text]
            done = i = end
            continue
        i += 1
    out.append(source[done:])
    return "".join(out)
