"""Tile sizes for the CPU's caches, when the user gives none (`--target=c --tile`).

PPCG tiles every member by 32. For the innermost point loop, which the
vectoriser runs and the hardware prefetcher streams, 32 elements is short:
jacobi-2d's rows are cut into 32-element pieces with a `min` bound each, and
gcc on the untiled original is faster. A tile only pays for itself where a loop
reuses data: an array that does not move along a member is read again at each
of that member's iterations, and what the loops inside touch of it must stay in
cache until then.

The model starts from 32 per member and doubles the innermost member's size (up
to 512) while, for every point loop, the arrays that loop reuses still fit in half
of L1 (what the loops inside touch of them within one tile: the product of the
tile sizes of the members the array moves along), and the whole tile's data in
half of L2. gemm gets 32 x 64 x 32 (B's 32 x 64 tile, reused along i, stays in L1;
with 512, as an L2 bound would allow, it ran 1.5x slower), then 256 x 48 x 48 for its
register blocks (`blocked_tile_sizes`); jacobi-2d, which reuses nothing across a tile,
is not tiled (below). The cache sizes are read from Linux's
`/sys/devices/system/cpu/cpu0/cache`; without them, 32 KiB and 512 KiB.

A band where no access stays still along any member but the innermost point loop,
and none jumps along that loop (a stencil's sweep: every access moves with every loop,
contiguously inside), has nothing for a tile to keep: the neighbours it reads again
are a few rows away, which the untiled loops keep in cache as well. Such a band is
not tiled at all (`worth_tiling`): tiled, jacobi-2d ran 1.3x and heat-3d 2x slower
than untiled, which runs as fast as gcc on the original (LARGE, one thread).
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ...extract.model import Scop
from .point_order import FAR, STILL, UNIT, AccessSteps

BASE_TILE = 32
MAX_INNERMOST_TILE = 512
MAX_PARALLEL_INNERMOST_TILE = 128   # an innermost member whose tiles the threads share
JUMPING_STREAMS = 32    # rows in flight in a vector loop along which arrays jump (jumping_rows)
MIN_JUMPING_ROWS = 8
MIN_BLOCKED_ROWS = 64   # the rows' tile of a band with wide register blocks
MAX_BLOCKED_ROWS = 256
CACHE_INFO = Path("/sys/devices/system/cpu/cpu0/cache")


@dataclass(frozen=True)
class Caches:
    l1_bytes: int = 32 * 1024     # data cache of one core
    l2_bytes: int = 512 * 1024


CACHES_VARIABLE = "PPCG_PY_CACHES"


@lru_cache(maxsize=1)
def host_caches(root: Path = CACHE_INFO) -> Caches:
    """This machine's L1 data and L2 cache sizes, or the stated defaults; the
    environment's PPCG_PY_CACHES (`L1,L2` in bytes) names another machine's (the code
    is for it; tests that expect one model's choices pin it)."""
    given = os.environ.get(CACHES_VARIABLE, "").split(",")
    if len(given) == 2 and all(g.strip().isdigit() for g in given):
        return Caches(int(given[0]), int(given[1]))
    found: dict[int, int] = {}
    for index in sorted(root.glob("index*")):
        try:
            level = int((index / "level").read_text())
            kind = (index / "type").read_text().strip()
            size = _bytes((index / "size").read_text().strip())
        except (OSError, ValueError):
            continue
        if kind in ("Data", "Unified") and level in (1, 2):
            found.setdefault(level, size)
    default = Caches()
    return Caches(found.get(1, default.l1_bytes), found.get(2, default.l2_bytes))


def _bytes(text: str) -> int:
    units = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def blocked_tile_sizes(tile: tuple[int, ...], rows: tuple[int, int], columns: tuple[int, int],
                       contiguous: bool, element: int = 8, caches: Caches | None = None) -> tuple[int, ...]:
    """The model's sizes for a band with register blocks (register_tiles.py): the rows'
    and the columns' members (`rows`, `columns`: the member and the block's extent
    along it) a whole number of blocks, so that a whole strip's blocks are all full.

    With contiguous columns (the wide blocks: gemm's `C[i][j] += A[i][k] * B[k][j]`),
    the sizes follow the blocks' data. Each step of a member between the block loops
    (`k`) reads a row of the tile of the operand that stays still along the rows
    (`B`), and the rows' tile reads that whole tile again for every strip of rows: it
    must stay in L1, so `k`'s size is the largest multiple of 16 with that tile in 5/8
    of L1 (the rest: the strip's rows of `A`, the block's copies). The rows' tile reads
    the tile of `A` (rows by `k`) once per tile of columns: it stays in L2, with the
    rows' size the largest power of two from 64 to 256 with that tile in 1/8 of L2;
    more rows read each tile of `B` into L1 fewer times. gemm at LARGE on a 2-core
    EPYC (32 KiB L1, 1 MiB L2), one thread: 256 x 48 x 48 0.079 s, 128 x 48 x 48
    0.083 s, 64 x 48 x 64 (the rule before) 0.089 s, 256 x 48 x 64 0.083 s, 512 x 48 x
    32 0.096 s; 2mm 0.098 s against 0.118 s, 3mm 0.164 s against 0.178 s.
    Where the columns gather from other rows (syr2k's `A[j][k]`, 8 rows of A per
    block, a cache line of each per step of `k`), `k`'s tile is long instead: those
    rows' tile (columns by `k`) stays in L2 for every strip of rows, and along a long
    `k` each row's lines stream in order. `k`'s size is the largest power of two up to
    512 with that tile in 1/8 of L2, the rows' as above (syr2k at LARGE, one thread:
    64 x 32 x 512 0.111 s, 32 x 32 x 32 0.141 s; syrk 0.118 s and 0.123 s)."""
    caches = host_caches() if caches is None else caches
    extents = dict((rows, columns))

    def whole_blocks(member: int, size: int) -> int:
        extent = extents.get(member)
        return size if extent is None else max(extent, size // extent * extent)
    column_tile = whole_blocks(columns[0], tile[columns[0]])
    in_l2 = caches.l2_bytes // 8
    if contiguous:
        between = max(16, (caches.l1_bytes * 5 // 8) // (column_tile * element) // 16 * 16)
    else:
        between = BASE_TILE
        while between < MAX_INNERMOST_TILE and 2 * between * column_tile * element <= in_l2:
            between *= 2
    row_tile = MIN_BLOCKED_ROWS
    while row_tile < MAX_BLOCKED_ROWS and 2 * row_tile * between * element <= in_l2:
        row_tile *= 2
    sizes = [between] * len(tile)
    sizes[columns[0]] = column_tile
    sizes[rows[0]] = whole_blocks(rows[0], row_tile)
    return tuple(sizes)


CPU_INFO = Path("/proc/cpuinfo")
VECTOR_BYTES_VARIABLE = "PPCG_PY_VECTOR_BYTES"


def vector_bytes() -> int | None:
    """The width of the vectors the C target's code is for, in bytes: the environment's
    PPCG_PY_VECTOR_BYTES (code for another machine), else this machine's."""
    given = os.environ.get(VECTOR_BYTES_VARIABLE, "")
    return int(given) if given.isdigit() else host_vector_bytes()


@lru_cache(maxsize=1)
def host_vector_bytes(info: Path = CPU_INFO) -> int | None:
    """The widest vectors of this machine's x86 CPU, in bytes (its flags: avx512f 64,
    avx 32, sse2 16), or None where /proc/cpuinfo does not say (another architecture)."""
    flags = _first_cpu(info).get("flags", "").split()
    widths = {"avx512f": 64, "avx": 32, "sse2": 16}
    return next((bytes_ for flag, bytes_ in widths.items() if flag in flags), None)


SPLIT_VECTORS_VARIABLE = "PPCG_PY_SPLIT_VECTORS"


def splits_wide_vectors() -> bool:
    """Whether the CPU the C target's code is for runs its cache-line-wide vectors as two
    halves: the environment's PPCG_PY_SPLIT_VECTORS (1 or 0: code for another machine),
    else this machine's (`host_splits_wide_vectors`)."""
    given = os.environ.get(SPLIT_VECTORS_VARIABLE, "")
    return given == "1" if given in ("0", "1") else host_splits_wide_vectors()


@lru_cache(maxsize=1)
def host_splits_wide_vectors(info: Path = CPU_INFO) -> bool:
    """Whether this machine's CPU is AMD's Zen 4 (AuthenticAMD, family 25, AVX-512), which
    runs each 512-bit operation as two 256-bit halves (gcc's own znver4 tuning knows it).
    Full-width vectors whose loads each span two cache lines lose there (heat-3d's rows
    1.1x slower) and win where the vector unit is a line wide (Zen 5, family 26: heat-3d
    1.14x and jacobi-2d 1.07x faster with 8 doubles than with 4)."""
    fields = _first_cpu(info)
    return (fields.get("vendor_id") == "AuthenticAMD" and fields.get("cpu family") == "25"
            and "avx512f" in fields.get("flags", "").split())


def _first_cpu(info: Path) -> dict[str, str]:
    """The fields of the first processor that /proc/cpuinfo (`info`) describes, by name;
    none where it cannot be read."""
    try:
        text = info.read_text()
    except OSError:
        return {}
    fields: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            break
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    return fields


@lru_cache(maxsize=1)
def host_threads() -> int:
    """The threads OpenMP runs by default here: the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def shared_tile_size(size: int, extent: int | None, multiple: int, threads: int | None = None) -> int:
    """The tile size of a member whose tile loop OpenMP's threads share, from the model's
    `size`: where the member's `extent` (bounded by the arrays' declared sizes) leaves
    fewer than two tiles per thread, a multiple of `multiple` (the register block's rows)
    that cuts the extent into equal tiles, as many as the threads or a multiple of them,
    no larger than `size`. OpenMP's static schedule gives each thread a run of
    consecutive tiles: doitgen's 140 rows of `sum_1` in one tile of 256 left the second
    thread idle; tiles of 70 run at 1.6x with two threads."""
    threads = host_threads() if threads is None else threads
    if extent is None or threads < 2 or -(-extent // size) >= 2 * threads:
        return size
    parts = threads
    while True:
        tile = -(-extent // parts)
        tile = -(-tile // multiple) * multiple
        if tile <= size:
            return tile
        parts += threads


def edge_free_columns(tile: int, extent: int | None, narrow: int) -> int | None:
    """A column tile for narrow register blocks (`narrow` columns) that divides the
    columns' `extent` (bounded by the arrays' declared sizes), no wider than `tile`,
    where `tile` leaves more than a sixteenth of the extent to an edge tile; else None.

    An edge tile's columns run without register blocks, the block's elements loaded and
    stored at every step of `k`, a chain of dependences through memory that runs 8x
    slower where the edge is a vector or two wide. doitgen's 160 columns in tiles of 48
    (2 x 24 blocks) left 16, a tenth of the work, and took half of the time: 0.055 s at
    LARGE on one thread, 0.024 s with 4 x 8 blocks in tiles of 40. Where the edge is
    short, the wide blocks' speed on the rest is worth more: 4 x 8 blocks cost gemm
    1.4x, and its 1100 columns leave 44 (4 %) to tiles of 48."""
    if extent is None or extent % tile * 16 <= extent:
        return None
    return next((t for t in range(tile // narrow * narrow, 0, -narrow) if extent % t == 0), None)


def worth_tiling(steps: AccessSteps, order: tuple[int, ...]) -> bool:
    """Whether a tile of the band would keep data for reuse: some access stays still
    along a member other than the innermost point loop's (its statement running along
    that member: fdtd-2d's `ey[0][j] = _fict_[t]` runs at i = 0 alone) and moves along
    another (one that moves along none reads one element, which no tile needs to keep);
    or some access jumps along the innermost point loop, where a tile keeps the cache
    lines it leaves for the next iterations of the loops around (adi's column sweeps:
    6.3 s tiled, 32 s untiled)."""
    temporal = any(row[m] == STILL and any(step in (UNIT, FAR) for step in row) for row in steps.steps
                   for m in order[:-1])
    return temporal or any(row[order[-1]] == FAR for row in steps.steps)


def cache_tile_sizes(steps: AccessSteps, order: tuple[int, ...], scop: Scop,
                     caches: Caches | None = None, parallel: int | None = None) -> tuple[int, ...]:
    """Tile sizes, one per band member (band order), for point loops in `order`. The
    member whose tile loop the threads share (`parallel`) grows to 128 at most, so that
    a few tiles are left to share: doitgen's only parallel loop is innermost, and at
    512 over np = 160 one thread would do all the work; at 128 its vector loop is four
    times as long as at 32 and it runs faster with one thread and with two (LARGE:
    0.070 s against 0.101 s, and 0.056 s against 0.061 s, the second tile being short).
    Where an access jumps along it (bicg's `A[i][j]` in a vector loop over i), it keeps
    32: 128 rows of A are 128 pages apart, more than the TLB holds (bicg 1.8x slower).
    Those 32 rows are shared among the arrays that jump (`jumping_rows`)."""
    caches = host_caches() if caches is None else caches
    sizes = [BASE_TILE] * len(order)
    innermost = order[-1]
    largest = MAX_INNERMOST_TILE
    if innermost == parallel:
        jumping = {a for a, row in zip(steps.arrays, steps.steps) if row[innermost] == FAR}
        largest = jumping_rows(len(jumping)) if jumping else MAX_PARALLEL_INNERMOST_TILE
        sizes[innermost] = min(sizes[innermost], largest)
    element = {a.name: element_bytes(a.element_type) for a in scop.arrays}
    while sizes[innermost] < largest:
        grown = list(sizes)
        grown[innermost] *= 2
        if not _reuse_fits(steps, order, grown, element, caches):
            break
        sizes = grown
    return tuple(sizes)


def shares_fit(steps: AccessSteps, order: tuple[int, ...], extents: list[int], scop: Scop,
               caches: Caches | None = None, threads: int | None = None) -> bool:
    """Whether, the band untiled and its innermost loop's `extents` shared among the
    threads, what each outer point loop reuses of the arrays that move inside it (atax's
    `y[j]` along `i`: a thread's share of the row) fits in half of L1."""
    caches = host_caches() if caches is None else caches
    threads = host_threads() if threads is None else threads
    share = list(extents)
    share[order[-1]] = -(-share[order[-1]] // threads)
    element = {a.name: element_bytes(a.element_type) for a in scop.arrays}
    for position, member in enumerate(order[:-1]):
        inner = set(order[position + 1:])
        reused = {a for a in steps.arrays if member not in steps.moving(a) and steps.moving(a) & inner}
        if sum(element.get(a, 8) * math.prod(share[m] for m in steps.moving(a) & inner) for a in reused) > \
                caches.l1_bytes // 2:
            return False
    return True


def jumping_rows(arrays: int) -> int:
    """The tile of a vector loop along which `arrays` arrays jump (a loop over the rows of
    row-major matrices, each step a row further): each row is a stream of its own for the
    hardware prefetcher and a page for the TLB, and the tile keeps JUMPING_STREAMS rows in
    all, at least MIN_JUMPING_ROWS (a vector of doubles). gesummv's `A[i][j]` and
    `B[i][j]` in a vector loop over `i`, LARGE, a 2-core Xeon (48 KiB L1, 2 MiB L2), side
    by side: 32 rows of each 2.62 ms with one thread and 1.81 ms with two, 16 rows 2.09 ms
    and 1.42 ms (Polly 2.48 ms and 1.42 ms); bicg and atax, one array, keep 32 (16: 1.1x
    slower)."""
    return max(MIN_JUMPING_ROWS, JUMPING_STREAMS // max(1, arrays))


def _reuse_fits(steps: AccessSteps, order: tuple[int, ...], sizes: list[int], element: dict[str, int],
                caches: Caches) -> bool:
    arrays = set(steps.arrays)

    def touched(names, members) -> int:
        return sum(element.get(a, 8) * math.prod(sizes[m] for m in steps.moving(a) & members) for a in names)

    if touched(arrays, set(order)) > caches.l2_bytes // 2:
        return False
    for position, member in enumerate(order[:-1]):
        reused = [a for a in arrays if member not in steps.moving(a)]
        if touched(reused, set(order[position + 1:])) > caches.l1_bytes // 2:
            return False
    return True


def element_bytes(c_type: str) -> int:
    words = c_type.split()
    return 8 if {"double", "long"} & set(words) or "*" in c_type else 4 if c_type != "char" else 1
