"""Tiles across the loop that carries a SCoP's dependences (C target): a stencil's time loop.

isl's scheduler, asked for an outermost parallel loop (PPCG's default, and the
GPU's need), runs a stencil one time step at a time: `t` outermost and serial,
each sweep below it a parallel band. Every step then streams the whole grid
through the caches; at PolyBench's LARGE sizes (jacobi-2d: two 13.5 MB grids)
that runs at the speed of the last-level cache, whatever the tiles inside a
sweep. Asked for no outer parallel loop, isl finds Pluto's schedule instead:
the sweeps of one step fused and skewed along time into a single permutable
band (jacobi-2d `[t, 2t + i, 2t + j]`, its second sweep one further: `1 + 2t + i`),
every dependence of non-negative distance along each member. Such a band may be
tiled along every member, time included: a tile runs a few time steps over a
small piece of the grid, which stays in the cache between them.

No member of that band is parallel; its tiles are (Pluto's wavefronts): along
`w = T0 + T1` (the first two tile loops summed), the tiles of one `w` depend on
none of each other, since a dependence that keeps `w` moves by zero along both
`T0` and `T1` (each distance is non-negative). The tile band becomes
`(T0 + T1, T1, T2, ...)`, and `T1` is the OpenMP loop. One thread runs the
same tiles in the same wavefront order. Where a tile depends on tiles a few fixed
distances back, no barrier separates the wavefronts (pipeline.py).

The point loops keep the band's order (time outermost: a tile's data stays in
cache while each step sweeps it), and are printed with isl's `separate` loop type:
where a stencil's two sweeps are fused with a shift, the statements' guards
(`if (c1 >= 2 * c0 + 2)`) would otherwise sit inside the innermost loop, and gcc
vectorises nothing. The statements then follow in source order, each with its own
innermost loop where the dependences allow (`in_source_order`, `rows_apart`).
jacobi-2d at LARGE, one thread, 16 x 32 x 256 tiles: guarded 2.2 s, separated 1.3 s,
with the rows apart 0.65 s; gcc on the original 1.4 s.

The same band serves a factorisation whose outer `k` carries dependences: lu's and
cholesky's are permutable in three members once `k` need not be parallel, and their
tiles run as wavefronts too (LARGE, against gcc -O3 on the original, one thread and
two: lu 5.5x and 9.5x, against 1.7x and 3.3x one `k` at a time; cholesky 2.7x and 3.5x,
against 1.3x and 1.9x).

Time tiles are tried where the SCoP's original outermost loop runs around every
statement and carries dependences; isl's schedule without outer coincidence is then
asked first, and kept where its top band is permutable over more than one member,
the arrays outgrow the core's L2 cache (`fits_in_l2`, asked first: else each step finds
them in L2 anyway) and each statement's innermost loop may run as vectors (else
isl's usual schedule, whose inner loops are parallel, is faster: seidel-2d). Only
then is isl's usual schedule not computed at all. `--time-tiles=never` turns them
off, `always` skips the model (the tests run every kernel so).
"""
from __future__ import annotations

import islpy as isl

from ...extract.model import Scop, Statement
from ...isl_context import maps_of, sets_of, statement_names, union_set_list
from ..distribute import keeps_dependences, statement_children, sunk
from ..loop_extents import set_extent
from ..parallel import zero_distance
from .cache_sizes import Caches, element_bytes, host_caches
from .point_order import FAR, UNIT, AccessSteps, access_steps, rebuilt
from .reductions import copy_bytes

NT = isl.schedule_node_type


def carried_outermost(schedule: isl.Schedule, dependences: isl.UnionMap) -> bool:
    """Whether the outermost loop of `schedule` (the original one) runs around every
    statement and carries some of `dependences`: a time loop, or a factorisation's `k`."""
    node = _top_band(schedule)
    if node is None:
        return False
    member = isl.UnionMap.from_union_pw_aff(node.band_get_partial_schedule().get_at(0))
    return not zero_distance(dependences, member)


def time_band(schedule: isl.Schedule) -> isl.ScheduleNode | None:
    """The band of `schedule` (computed without outer coincidence) to tile along time:
    its first band, above every statement, permutable, with more than one member."""
    node = _top_band(schedule)
    if node is None or node.band_n_member() < 2 or not node.band_get_permutable():
        return None
    return node


def _top_band(schedule: isl.Schedule) -> isl.ScheduleNode | None:
    node = schedule.get_root()
    while node.get_type() in (NT.domain, NT.context, NT.mark) and node.n_children() == 1:
        node = node.child(0)
    return node if node.get_type() == NT.band else None


def grid_bytes(scop: Scop, statements: frozenset[str] | None = None) -> int | None:
    """The bytes of the arrays the SCoP's statements (those of a time loop, `statements`)
    access at their declared extents, or None where some extent is not bounded: the
    arrays a time band sweeps, since it runs around every statement of the loop."""
    names = {acc.array for stmt in scop.statements for acc in stmt.accesses
             if statements is None or stmt.name in statements}
    sizes = [copy_bytes(scop, a.name) for a in scop.arrays if a.name in names and not a.is_scalar]
    return None if None in sizes else sum(sizes)


def fits_in_l2(scop: Scop, caches: Caches | None = None, statements: frozenset[str] | None = None) -> str | None:
    """Why tiles along time would not pay whatever the schedule, or None: a time step's
    data (the arrays' declared sizes; unknown sizes are taken as large) must outgrow the
    core's L2 cache, so that keeping a tile's data across steps saves trips further out.
    Asked before isl's scheduler, which it may spare."""
    caches = host_caches() if caches is None else caches
    size = grid_bytes(scop, statements)
    if size is not None and size <= caches.l2_bytes:
        return f"its arrays ({size} bytes) fit in the L2 cache ({caches.l2_bytes} bytes)"
    return None


def recurrent_rows(band: isl.ScheduleNode, dependences: isl.UnionMap) -> str | None:
    """Why the time band's tiles would not pay, or None: a tile's rows must vectorise
    (`rows_vectorise`)."""
    if not rows_vectorise(band, dependences):
        return "a statement depends on itself along the innermost loop (its rows would not vectorise)"
    return None


def rows_vectorise(band: isl.ScheduleNode, dependences: isl.UnionMap) -> bool:
    """Whether no statement depends on itself along the band's innermost member with the
    others held (each statement's innermost loop may run as vectors). Gauss-Seidel
    updates do (seidel-2d's `A[i][j]` reads `A[i][j - 1]`, just written): tiled along
    time, each point waits for the last, and seidel-2d ran at gcc's speed, against
    2.7x with isl's usual schedule (a wavefront whose inner loops are parallel)."""
    partial = band.band_get_partial_schedule()
    n = band.band_n_member()
    rows = dependences
    for k in range(n - 1):
        member = isl.UnionMap.from_union_pw_aff(partial.get_at(k))
        rows = rows.intersect(member.apply_range(member.reverse()))
    selves = isl.UnionMap.empty(rows.get_space())
    for dep in maps_of(rows):
        if dep.get_tuple_name(isl.dim_type.in_) == dep.get_tuple_name(isl.dim_type.out):
            selves = selves.union(isl.UnionMap.from_map(dep))
    return zero_distance(selves, isl.UnionMap.from_union_pw_aff(partial.get_at(n - 1)))


STENCIL_REACH = 8      # elements a stencil's values travel per member of its band, at most


def unbounded_distances(band: isl.ScheduleNode, flow: isl.UnionMap) -> str | None:
    """Why a time loop among others (time_loops.py) is not a stencil whose tiles pay, or
    None: along each member of its time band (or of the loop itself, asked before isl's
    scheduler), the values its statements pass on (`flow`) must travel at most
    `STENCIL_REACH` elements, whatever the parameters (a stencil's skewed steps and
    neighbours: 1 to 4). ludcmp's factorisation, its scalar given a copy per iteration,
    has a band too, but its values travel the whole matrix: tiled along time, 3.8 times
    slower than its usual schedule."""
    partial = band.band_get_partial_schedule()
    for k in range(band.band_n_member()):
        member = isl.UnionMap.from_union_pw_aff(partial.get_at(k))
        for distance in sets_of(flow.apply_domain(member).apply_range(member).deltas()):
            reach = distance.project_out(isl.dim_type.param, 0, distance.dim(isl.dim_type.param))
            if reach.is_empty():
                continue
            if not reach.is_bounded() or max(abs(reach.dim_max_val(0).to_python()),
                                             abs(reach.dim_min_val(0).to_python())) > STENCIL_REACH:
                return (f"the values its statements pass on travel more than {STENCIL_REACH} elements along "
                        f"member {k} of its band (not a stencil)")
    return None


TIME_TILE = 16          # time steps per tile


def time_tile_sizes(n_members: int) -> tuple[int, ...]:
    """The model's sizes for a time band: 16 time steps; over a plane (jacobi-2d,
    fdtd-2d) 32 rows of 256 elements, long enough for the vectoriser; over a volume
    (heat-3d) 16 planes of 32 rows of 128, so that a tile's points over the steps
    come near the L2 cache. Measured at LARGE on a 2-core EPYC (1 MiB L2), one thread
    and two, against gcc -O3 on the original: jacobi-2d 16 x 32 x 256 2.1x and 4.0x
    (32 x 32 x 512 2.1x, 3.7x; 8 x 16 x 1024 1.8x, 3.7x); heat-3d 16 x 16 x 32 x 128
    1.65x and 2.5x (16 x 32 x 32 x 128 1.9x, 2.3x; 8 x 16 x 32 x 128 1.4x, 2.4x;
    4 x 8 x 8 x 128 1.2x, 2.0x). Along a line (jacobi-1d) 128 steps of 256 elements:
    the wavefront sums the two tile loops, and where a tile's steps times the skew (2
    per step) fall short of its width, isl's AST generator took minutes to bound them
    (16 x 256: 200 s, 32 x 256 and 64 x 256 over 100 s; 128 x 256: 4 s), for the same
    speed (N = 2,000,000, 1,000 steps, one thread and two: 0.71 s and 0.38 s at 16 x 256,
    0.73 s and 0.37 s at 128 x 256; gcc 1.42 s). trisolv's band `(j, i)` gets the same
    (LARGE, side by side, 15 runs: 1.58 ms and 1.40 ms, against 1.71 ms and 1.34 ms at
    the 64 x 256 it had before)."""
    if n_members == 2:
        return (128, 256)
    if n_members <= 3:
        return (TIME_TILE,) + (32,) * (n_members - 2) + (256,)
    return (TIME_TILE, 16) + (32,) * (n_members - 3) + (128,)


SEGMENT_BYTES = 512     # of one row, read in a tile between jumps: 8 cache lines


def with_row_segments(tile: tuple[int, ...], steps: AccessSteps, scop: Scop) -> tuple[int, ...]:
    """`tile` with each member along which an array that the innermost point loop jumps
    through (a FAR step: down a column) moves by one element spanning `SEGMENT_BYTES`
    of it at least. The tile then reads each row of that array in segments of several
    cache lines, which the prefetchers follow, where 16 steps of a time band read two
    lines per row. trisolv's `L[i][j]`, scheduled as a band `(j, i)`, at LARGE: tiles of
    16 x 256 ran 2.5 ms with one thread, 64 x 256 1.85 ms (gcc on the original 2.9 ms;
    two threads 1.44 and 1.40 ms); 32 x 256 2.6 ms, 128 x 256 1.8 ms."""
    last = len(tile) - 1
    wanted = list(tile)
    for array, row in zip(steps.arrays, steps.steps):
        if row[last] != FAR:
            continue
        segment = SEGMENT_BYTES // element_bytes(scop.array(array).element_type)
        for k in range(last):
            if row[k] == UNIT:
                wanted[k] = max(wanted[k], segment)
    return tuple(wanted)


def separated(points: isl.ScheduleNode) -> isl.ScheduleNode:
    """The point band with every member printed `separate`: one loop per set of
    statements that run over a range, without guards inside."""
    for k in range(points.band_n_member()):
        points = points.band_member_set_ast_loop_type(k, isl.ast_loop_type.separate)
    return points


def in_source_order(points: isl.ScheduleNode, scop: Scop) -> isl.ScheduleNode:
    """The point band with the statements of its leaf in a sequence in source order.
    Instances at equal values of the whole band depend on none of each other (isl
    put no sequence below), so any order is valid, and isl's own may put a sweep's
    reader before the writer of the value it reads one iteration later (jacobi-2d's
    `A = f(B)` before `B = f(A)`, shifted by one): a dependence back along the
    innermost loop, which gcc does not vectorise. In source order the writer comes
    first; `rows_apart` then gives each statement its own innermost loop."""
    leaf = points.child(0)
    names = statement_names(leaf.get_domain())
    if leaf.get_type() != NT.leaf or len(names) < 2:
        return points
    filters = [isl.UnionSet.from_set(isl.Set.universe(s.domain.get_space()))
               for s in scop.statements if s.name in names]
    return leaf.insert_sequence(union_set_list(filters)).parent()


def rows_apart(points: isl.ScheduleNode, dependences: isl.UnionMap) -> isl.ScheduleNode:
    """The point band's innermost member sunk into each statement of the sequence below
    (one innermost loop per statement), where no dependence goes from a later statement
    to an earlier one within a row. Fused, jacobi-2d's `A = f(B)` reads, one iteration
    later, the vector `B = f(A)` has just stored, one element off: each load waits for
    the store to drain (gcc's AVX-512 loop spent 70% of its time there). Apart, the second
    loop reads the row from L1. Returns the point band (its outer members)."""
    n = points.band_n_member()
    if n < 2:
        return points
    inner = points.band_split(n - 1).child(0)
    children = statement_children(inner)
    if len(children) < 2 or not keeps_dependences(inner, children, dependences):
        return inner.parent()
    return sunk(inner, isl.ast_loop_type.separate).parent()


CACHE_LINE = 64     # bytes


def row_lanes(row: isl.ScheduleNode, scop: Scop, vector_bytes: int | None, split_vectors: bool) -> int:
    """OpenMP's `simdlen` (elements) for a time tile's row: the one-member band `row`
    over one statement's innermost loop; 0 leaves the width to the compiler. Where the
    statement reads neighbours along the row (`reads_neighbours`) and the CPU's vectors
    are a cache line wide but run as two halves (`split_vectors`: AMD's Zen 4), half a
    line: the rows start one element in (`k = 1`), so the loads of a full-line vector
    each span two lines, where half of the half-line ones do. heat-3d at LARGE on the
    Zen 4 EPYC (gcc -O3 -march=native), one thread: 1.33 s with gcc's 8-element vectors,
    1.21 s with 4 (two threads: 0.84 s and 0.75 s); within 2% for jacobi-2d and fdtd-2d,
    whose tiles' rows are 256 long. On the Zen 5 EPYC, whose vector unit is a line wide,
    gcc's 8-element vectors win: heat-3d 0.78 s against 0.91 s, jacobi-2d 0.47 s against
    0.50 s, fdtd-2d level."""
    if vector_bytes is None or vector_bytes < CACHE_LINE or not split_vectors:
        return 0
    statements = [st for st in scop.statements if st.name in statement_names(row.get_domain())]
    if len(statements) != 1 or not reads_neighbours(row, statements[0], scop):
        return 0
    written = [acc.array for acc in statements[0].accesses if acc.is_write]
    return CACHE_LINE // 2 // max(element_bytes(scop.array(a).element_type) for a in written) if written else 0


def reads_neighbours(row: isl.ScheduleNode, statement: Statement, scop: Scop) -> bool:
    """Whether `statement`, alone under the one-member band `row`, reads an array through
    two references a constant distance apart in its last subscript and equal in the
    others, both moving one element per step of the loop: a stencil's `A[i][k - 1]`,
    `A[i][k + 1]`."""
    exact = [acc for acc in statement.accesses if acc.exact]
    steps = access_steps(row, scop).steps
    reads = [acc for acc, step in zip(exact, steps) if acc.is_read and step[0] == UNIT]
    for k, first in enumerate(reads):
        for second in reads[k + 1:]:
            if first.array == second.array and _apart_in_last_subscript(first.index, second.index):
                return True
    return False


def _apart_in_last_subscript(first: isl.Map, second: isl.Map) -> bool:
    """Whether the two references of one statement touch elements a nonzero constant
    apart in the last subscript and equal in the others, at every instance."""
    pairs = first.range_product(second).range().unwrap().deltas()
    last = pairs.dim(isl.dim_type.set) - 1
    if last < 0 or not pairs.is_singleton():
        return False
    point = pairs.sample_point()
    offsets = [point.get_coordinate_val(isl.dim_type.set, d).to_python() for d in range(last + 1)]
    return offsets[-1] != 0 and not any(offsets[:-1])


def wavefront(tiles: isl.ScheduleNode) -> isl.ScheduleNode:
    """The tile band as `(T0 + T1, T1, T2, ...)` with `T1` parallel (see above). Summing
    `T2` too would give heat-3d's narrow grid more tiles per wavefront, but one thread
    then leaves each tile's neighbours for later (heat-3d 0.9x gcc instead of 1.5x),
    and jacobi-2d's AST took minutes."""
    partial = tiles.band_get_partial_schedule()
    n = tiles.band_n_member()
    members = [partial.get_at(0).add(partial.get_at(1))] + [partial.get_at(k) for k in range(1, n)]
    return rebuilt(tiles, members, [k == 1 for k in range(n)])


def whole_rows(band: isl.ScheduleNode, in_bounds: isl.UnionSet, tile: tuple[int, ...]) -> tuple[int, ...]:
    """The innermost member, as the members to leave untiled, where one time step's row
    (its values with the outer members held, over the instances in bounds) fits in its
    tile size: heat-3d's rows of 119 against tiles of 128 (LARGE, one thread and two,
    gcc -O3 on the original 2.3 s and 2.2 s: tiled 1.59 s and 1.01 s, whole 1.48 s and
    0.86 s). Over a plane longer rows keep their tiles (jacobi-2d's 1,299 in tiles of
    256: whole, 0.97x as fast). Over a volume every row is whole: its tiles, skewed along
    time in three dimensions, cut rows into pieces that each run apart, and whole rows ran
    faster at every length tried (Zen 5, one thread, a 7-point Jacobi sweep over grids of
    NI x NI x NK, against rows in tiles of 128: NK = 256, 128 x 128 planes, 1.3x; 1,024
    over 64 x 64, 1.8x; 2,048 over 96 x 96, 1.4x; 4,096 over 32 x 32, 1.2x; PolyBench's
    heat-3d at EXTRALARGE, rows of 198, 1.08x; Pluto's 3d7pt, rows of 256, 1.1x, and of
    400, 1.23x; a tile of 256 was between)."""
    n = band.band_n_member()
    if n >= 4:
        return (n - 1,)
    length = row_length(band, in_bounds)
    return (n - 1,) if n > 1 and length is not None and length <= tile[-1] else ()


def row_length(band: isl.ScheduleNode, in_bounds: isl.UnionSet) -> int | None:
    """How many values the band's innermost member takes at one value of its outer ones
    (one step's row), over the instances in bounds; None where no array bounds it."""
    n = band.band_n_member()
    domain = band.get_domain().intersect(in_bounds)
    partial = band.band_get_partial_schedule()
    outer = isl.UnionMap.from_multi_union_pw_aff(partial.drop_dims(isl.dim_type.set, n - 1, 1)) \
        .intersect_domain(domain)
    inner = isl.UnionMap.from_union_pw_aff(partial.get_at(n - 1)).intersect_domain(domain)
    rows = outer.reverse().apply_range(inner)       # outer values -> innermost values
    spans = rows.reverse().apply_range(rows)         # two values of one row
    if spans.is_empty():
        return None
    lengths = [set_extent(d) for d in sets_of(spans.deltas())]
    if not lengths or None in lengths:
        return None
    return max(lengths) // 2 + 1     # the differences of a row of L values run from 1 - L to L - 1


def with_members_whole(tiles: isl.ScheduleNode, band_partial: isl.MultiUnionPwAff,
                       whole: tuple[int, ...]) -> isl.ScheduleNode:
    """The tile band (its point band below) with each member in `whole` left untiled:
    its tile member constant, its point member the band's own. heat-3d's band skews
    `k` by `2t`: over the 16 steps of a tile, a row's `2t + k` spans 148 values, and
    tiles of 128 split every row in two pieces, each run in a different tile (the slab
    streamed twice per step). Whole, each row runs once per step. The tile band stays
    permutable: a constant member moves no dependence."""
    if not whole:
        return tiles
    n = tiles.band_n_member()
    tile_partial = tiles.band_get_partial_schedule()
    tile_members = [tile_partial.get_at(k).scale_val(isl.Val.zero(tiles.get_ctx())) if k in whole
                    else tile_partial.get_at(k) for k in range(n)]
    tiles = rebuilt(tiles, tile_members, [tiles.band_member_get_coincident(k) for k in range(n)])
    points = tiles.child(0)
    point_partial = points.band_get_partial_schedule()
    point_members = [band_partial.get_at(k) if k in whole else point_partial.get_at(k) for k in range(n)]
    return rebuilt(points, point_members, [points.band_member_get_coincident(k) for k in range(n)]).parent()
