"""Tile, block and grid sizes per kernel: defaults, `--tile-sizes` and `--sizes`.

`--sizes` is PPCG's isl union map, e.g. `{ kernel[0] -> tile[32,32]; kernel[i] ->
block[16] : i != 4 }`; sizes are listed outermost first. The C target also reads
`register[R, C]`, the rows and columns of its register blocks (`register[1, 1]`: none),
and `tile[]`: the band is not tiled. `--sizes-file` holds the same
text, with `#` comments (what `--autotune` writes); `--dump-sizes` prints the sizes
used in that syntax, so that each of the three feeds the others.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import islpy as isl

from ..diagnostics import CompileError
from ..options import Options

DEFAULT_BLOCK = {1: (512,), 2: (32, 16), 3: (32, 4, 4)}
DEFAULT_GRID = {1: (32768,), 2: (256, 256)}


@dataclass(frozen=True)
class KernelSizes:
    tile: tuple[int, ...]
    block: tuple[int, ...]   # threads per mapped dimension, outermost first
    grid: tuple[int, ...]    # maximal number of blocks per mapped dimension
    register: tuple[int, ...] = ()  # C target: rows, columns of a register block (1, 1: none)
    order: tuple[int, ...] = ()     # C target: the point loops, outermost first, as the band's members
    untiled: bool = False           # C target: the band is left whole (`tile[]`)
    isolated: bool = False          # C target: its full tiles apart (`isolate[1]`, cpu/full_tiles.py)
    whole: tuple[int, ...] = ()     # C target: members of a time band left untiled (`whole[...]`, time_tiles.py)


def sizes_file_text(text: str) -> str:
    """The `--sizes` text of a sizes file: its lines without `#` comments, joined by
    spaces (isl's syntax has no `#`, so a comment can only be one)."""
    return " ".join(kept for line in text.splitlines() if (kept := line.split("#", 1)[0].strip()))


def read_sizes_file(path: str) -> str:
    """The `--sizes` text of `--sizes-file`, checked here so that an error names the file
    (later, `parse_sizes` could only name the option)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = sizes_file_text(f.read())
    except (OSError, UnicodeDecodeError) as exc:
        raise CompileError(f"--sizes-file: cannot read it ({getattr(exc, 'strerror', None) or exc})", path) from None
    try:
        isl.UnionMap.read_from_str(isl.Context(), text or "{ }")
    except isl.Error:
        raise CompileError(f"not a --sizes map: '{text}' (expected e.g. "
                           "'{ kernel[0] -> tile[32,32]; kernel[1] -> tile[64,16,8] }')", path) from None
    return text


def parse_sizes(text: str, ctx: isl.Context) -> isl.UnionMap:
    try:
        return isl.UnionMap.read_from_str(ctx, text)
    except isl.Error:
        raise CompileError(f"--sizes: cannot parse '{text}' as an isl union map "
                           "(expected e.g. '{ kernel[0] -> tile[32,32]; kernel[i] -> block[16,16] }')") from None


def user_sizes(sizes: isl.UnionMap | None, kernel: int, kind: str) -> list[int] | None:
    if sizes is None:
        return None
    ctx = sizes.get_ctx()
    point = isl.UnionSet.read_from_str(ctx, f"{{ kernel[{kernel}] }}")
    found: list[isl.Map] = []
    sizes.intersect_domain(point).foreach_map(found.append)
    for m in found:
        if m.get_tuple_name(isl.dim_type.out) != kind or m.is_empty():
            continue
        rng = m.range()
        if rng.involves_dims(isl.dim_type.param, 0, rng.dim(isl.dim_type.param)):
            raise CompileError(f"--sizes: {kind} sizes of kernel {kernel} depend on parameters; "
                               "sizes must be integer constants")
        fixed = [rng.plain_get_val_if_fixed(isl.dim_type.set, k) for k in range(rng.dim(isl.dim_type.set))]
        if not rng.is_singleton() or not all(v.is_int() for v in fixed):
            raise CompileError(f"--sizes: {kind} sizes of kernel {kernel} are not fixed values")
        values = [int(v.to_python()) for v in fixed]
        if kind not in ("order", "isolate", "whole") and any(v <= 0 for v in values):   # members from 0; a flag
            raise CompileError(f"--sizes: {kind} sizes of kernel {kernel} must be positive")
        return values
    return None


def given_sizes(sizes: isl.UnionMap | None, kernel: int) -> bool:
    """Whether `--sizes` names any size of the kernel."""
    return sizes is not None and any(user_sizes(sizes, kernel, kind) is not None for kind in ("tile", "block", "grid"))


def _fit(values: list[int] | None, defaults: tuple[int, ...], n: int) -> tuple[int, ...]:
    """The first n user values, completed from the defaults."""
    values = list(values or [])
    return tuple(values[k] if k < len(values) else defaults[min(k, len(defaults) - 1)]
                 for k in range(n))


def kernel_sizes(options: Options, sizes: isl.UnionMap | None, kernel: int,
                 n_tiled: int, n_threads: int, n_blocks: int) -> KernelSizes:
    tile_default = options.tile_sizes or (options.tile_size,)
    tile = _fit(user_sizes(sizes, kernel, "tile") or (list(options.tile_sizes) if options.tile_sizes else None),
                tile_default, n_tiled)
    block = _fit(user_sizes(sizes, kernel, "block"), DEFAULT_BLOCK.get(n_threads, (1,)), n_threads)
    grid = _fit(user_sizes(sizes, kernel, "grid"), DEFAULT_GRID.get(n_blocks, (1,)), n_blocks)
    block = launchable(tuple(min(b, t) for b, t in zip(block, tile)))
    return KernelSizes(tile, block, grid)


MAX_THREADS_PER_BLOCK = 1024
MAX_BLOCK_DIMS = (64, 1024, 1024)     # z, y, x: CUDA's bound on each block dimension


def launchable(block: tuple[int, ...]) -> tuple[int, ...]:
    """`block` within CUDA's limits (a launch past them fails with "invalid
    configuration argument", fuzz 14:232): each dimension at most its bound, and
    the outermost halved until the block has at most 1024 threads."""
    sizes = [min(b, bound) for b, bound in zip(block, MAX_BLOCK_DIMS[-len(block):])] if block else []
    k = 0
    while sizes and math.prod(sizes) > MAX_THREADS_PER_BLOCK:
        while sizes[k] == 1:
            k += 1
        sizes[k] = (sizes[k] + 1) // 2
    return tuple(sizes)



def format_sizes(entries: Sequence[tuple[int, KernelSizes]]) -> str:
    """The sizes used, in `--sizes` syntax (what `--dump-sizes` prints)."""
    return "{ " + "; ".join(part for kernel, ks in entries for part in size_entries(kernel, ks)) + " }"


def size_entries(kernel: int, ks: KernelSizes) -> list[str]:
    """One kernel's (or band's) sizes, each as a `kernel[i] -> kind[...]` of `--sizes`."""
    parts = [f"kernel[{kernel}] -> tile[]"] if ks.untiled else []
    order = ks.order if len(ks.order) > 1 else ()     # one member has one order
    for kind, values in (("tile", ks.tile), ("block", ks.block), ("grid", ks.grid), ("register", ks.register),
                         ("order", order), ("isolate", (1,) if ks.isolated else ()), ("whole", ks.whole)):
        if values:
            parts.append(f"kernel[{kernel}] -> {kind}[{', '.join(map(str, values))}]")
    return parts
