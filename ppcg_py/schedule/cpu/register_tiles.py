"""Register tiles for the C target: unroll-and-jam of a tile's point loops, with the
accumulated block of an array kept in a local array that gcc holds in registers.

gemm's point loops after `point_order.py` are `i, k, j` with `j` vectorised: every
`k` step loads and stores `C[i][j..]` again (two loads and a store per
multiply-add), and gcc cannot keep `C` in registers across `k` because, for all it
knows, `C` may alias `A` or `B`. The polyhedral model already assumes the arrays are
distinct, so the compiler can do what gcc may not:

- strip-mine two members `u`, `v` of the point band (`v` the vector loop, coincident)
  into blocks of `rows x columns` and move the block loops outside the other
  members: `u/rows, v/columns, k, u%rows, v%columns`. The band is permutable (every
  dependence non-negative along every member), so any such order is legal;
- keep the block of the array `P` accessed under the band as
  `P[f(outer) + u][g(outer) + v]` in a local `rows x columns` array for the whole
  `k` loop: read before it, written back after it (the printer's part:
  codegen/c_target.py), the `u%rows` loop unrolled and the `v%columns` loop marked
  for the vectoriser. `P`'s other accesses there read and write memory, where that
  gives the values the program's order gives (`_apart_keep_their_values`);
- only whole strips (a block's rows across the tile's columns, every element of `P`
  there accessed) get this form, so that, the tile sizes being multiples of the
  block's, their blocks are full: the copies touch only elements the code touches
  anyway, and the inner loops have constant bounds. The rest (a row or two short of
  a block, tiles with partial columns, syrk's diagonal tiles) keeps the plain point
  loops, after the blocks: where `u` is coincident no instance of one depends on the
  other (zero distance along `u` and `v`); where it carries dependences, none may go
  from the rest back to the blocks (`_blocks_first`).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import islpy as isl

from ...extract.model import Scop
from ...isl_context import band_values, maps_of, schedule_values, sets_of, statement_names, union_of, union_set_list
from ..parallel import padded, schedule_map
from .cache_sizes import element_bytes
from ..distribute import keeps_dependences, statement_children
from .full_tiles import filled_tiles
from .point_order import placed_instances

NT = isl.schedule_node_type
MARK = "register_tile"
ROWS = 4                # rows of a block: the unrolled loop (4 rows x 2 vectors: 8 registers of 16)
VECTOR_BYTES = 32       # AVX2's registers; a block's columns fill two of them
VECTORS = 2
WIDE_VECTORS = 6        # a block's columns where they are contiguous (2 rows x 6 vectors: 12 registers)


@dataclass(frozen=True)
class RegisterTile:
    """A block of `array` kept in a local array under the mark `register_tileN`."""

    index: int
    array: str
    extents: tuple[int, int]    # rows, columns of the local array
    subscripts: tuple[int, int]  # the array's subscripts that the rows and the columns move
    depths: tuple[int, int]     # schedule dimensions of the row and the column point loops
    # each instance's row and column in its block (isl may unroll or drop those loops)
    places: tuple[isl.UnionPwAff, isl.UnionPwAff]
    # the accesses the block holds (tags); the array's others read memory (trmm's B[k][j])
    tags: frozenset[str] = frozenset()

    @property
    def name(self) -> str:
        return f"{MARK}{self.index}"


@dataclass(frozen=True)
class BlockPlan:
    """How a point band is blocked: members `u` (rows) and `v` (columns), and the array."""

    rows_member: int
    columns_member: int
    array: str
    extents: tuple[int, int]
    subscripts: tuple[int, int]
    statements: frozenset[str]  # those that access the array
    column_tile: int            # the tile size of member v: a strip's width
    tags: frozenset[str] = frozenset()  # the accesses the block holds (all the array's but those apart)


def default_shape(element_type: str, contiguous: bool) -> tuple[int, int]:
    """Rows and columns of a block of this element type. Where every access along the
    columns is contiguous (`contiguous`), 2 rows of 6 vectors: 12 accumulators of the 16
    registers, and per step of `k` 2 broadcasts of the rows' operand for 12
    multiply-adds (gemm at LARGE, one thread: 0.105 s, against 0.125 s for 2 x 4
    vectors, 0.18 s for 4 x 2 and 0.25 s without blocks). Where the columns gather
    from other rows (syr2k's `A[j][k]`), 4 rows of 2 vectors: fewer rows to gather."""
    lanes = _lanes(element_type)
    return (ROWS // 2, WIDE_VECTORS * lanes) if contiguous else (ROWS, VECTORS * lanes)


def narrow_block(element_type: str) -> tuple[int, int]:
    """4 rows of 2 vectors: the block for column tiles narrower than the wide one's."""
    return ROWS, VECTORS * _lanes(element_type)


def _lanes(element_type: str) -> int:
    return max(1, VECTOR_BYTES // element_bytes(element_type))


def _shape_in_tile(shape: tuple[int, int], sizes: tuple[int, int], lanes: int) -> tuple[int, int] | None:
    """The largest block within the default `shape` whose rows divide the tile's rows
    and whose columns, whole vectors, divide the tile's columns (`sizes`): the user
    fixed the sizes (PPCG's 32: 2 x 16 instead of 2 x 24); None if there is none."""
    rows = next((r for r in range(shape[0], 0, -1) if sizes[0] % r == 0), 1)
    columns = next((c for c in range(shape[1], 0, -lanes) if sizes[1] % c == 0), None)
    return None if columns is None else (rows, columns)


def block_plan(points: isl.ScheduleNode, scop: Scop, tile: tuple[int, ...], order: tuple[int, ...],
               vector_safe: bool, shape: tuple[int, int] | None = None, contiguous: bool = False,
               aligned: bool = True, dependences: isl.UnionMap | None = None) -> BlockPlan | None:
    """A register block for the point band `points` (members already in `order`, `tile`
    in band order), or None: the innermost member vectorised and coincident, another
    coincident member, a third member to run between them, an array that every
    statement under the band accesses only at `(outer) + (u, v)`, and no bands below.
    `shape` (rows, columns) is the user's (`--sizes`: `register[R, C]`), else
    `default_shape` (`contiguous`: no access jumps along the vector member), made
    smaller where the tile needs it; the tile's sizes along `u` and `v` must be
    multiples of the block's (not `aligned`: sizes about to be fitted to the block,
    at least as large). The rows' member may carry dependences where `dependences` are
    given and none goes from the instances left unblocked back to the blocks, which run
    first (`_blocks_first`). The array's accesses that do not move with `u` and `v` (trmm's
    `B[k][j]`, read along `k` beside the block of `B[i][j]`) stay in memory where no block
    holds an element they write, nor one they read after the block's statements wrote it
    in the same block (`_apart_keep_their_values`)."""
    n = points.band_n_member()
    if n < 3 or not vector_safe or _has_bands_below(points):
        return None
    statements = [s for s in scop.statements if s.name in statement_names(points.get_domain())]
    if any(s.calls for s in statements):
        return None
    v = n - 1
    # a row member that carries dependences needs them to check the blocks' order
    rows_members = [k for k in range(n - 1) if points.band_member_get_coincident(k) or dependences is not None]
    if not points.band_member_get_coincident(v) or not rows_members:
        return None
    written = [a.array for s in statements for a in s.accesses if a.is_write]
    for array in dict.fromkeys(written):
        arr = scop.array(array)
        if arr.is_scalar or arr.rank < 2:
            continue
        if shape is not None and shape[0] * shape[1] == 1:
            return None
        for u in rows_members:
            found = _block_accesses(points, statements, array, u, v)
            if found is None:
                continue
            subscripts, tags = found
            if not any(a.tag in tags and a.is_write for s in statements for a in s.accesses):
                continue        # a block that nothing accumulates into saves nothing
            accessing = frozenset(s.name for s in statements if any(a.array == array for a in s.accesses))
            apart = any(a.array == array and a.tag not in tags for s in statements for a in s.accesses)
            sizes = (tile[order[u]], tile[order[v]])
            for extents in _shapes(shape, arr.element_type, contiguous, apart):
                if shape is None and aligned:
                    extents = _shape_in_tile(extents, sizes, _lanes(arr.element_type))
                if extents is None or extents[0] * extents[1] == 1 or any(
                        size % extent if aligned else size < extent for size, extent in zip(sizes, extents)):
                    continue        # a block would straddle two tiles
                plan = BlockPlan(u, v, array, extents, subscripts, accessing, tile[order[v]], tags)
                if apart and not _apart_keep_their_values(points, scop, statements, plan):
                    continue
                if not points.band_member_get_coincident(u) and not _blocks_first(points, plan, dependences):
                    continue
                return plan
    return None


def _shapes(shape: tuple[int, int] | None, element_type: str, contiguous: bool,
            apart: bool) -> list[tuple[int, int]]:
    """The blocks to try: the user's, or the default and, where accesses to the array
    lie apart from its block (trmm's `B[k][j]` beside `B[i][j]`), one row of it: a
    single row's block never holds an element those read."""
    if shape is not None:
        return [shape]
    rows, columns = default_shape(element_type, contiguous)
    return [(rows, columns), (1, columns)] if apart and rows > 1 else [(rows, columns)]


def blocked(points: isl.ScheduleNode, plan: BlockPlan, index: int, vector_mark: Callable[[], str],
            dependences: isl.UnionMap) -> tuple[isl.ScheduleNode, RegisterTile]:
    """The point band split into a sequence of its full blocks (blocked, under the mark)
    and the rest (the band as it was); returns the sequence node and the tile. The
    caller finishes the second child as an unblocked point band. Each column loop goes
    under a mark named by `vector_mark()`. Where the band holds a sequence of
    statements, the loops inside the block run per statement when the dependences
    allow (gemm's `C *= beta`, at k = 0, then runs once before the loop over k)."""
    full = _full_block_instances(points, plan)
    rest = points.get_domain().subtract(full)
    node = points.insert_sequence(union_set_list([full, rest]))
    band = node.child(0).child(0)
    n = band.band_n_member()
    partial = band.band_get_partial_schedule()
    coincident = [band.band_member_get_coincident(k) for k in range(n)]
    u, v = plan.rows_member, plan.columns_member
    rows, columns = plan.extents
    ctx = band.get_ctx()
    pu, pv = partial.get_at(u), partial.get_at(v)
    row, column = pu.mod_val(isl.Val(rows, ctx)), pv.mod_val(isl.Val(columns, ctx))
    others = [k for k in range(n) if k not in (u, v)]
    inner = [([partial.get_at(k) for k in others], [coincident[k] for k in others]), ([row], [True]),
             None, ([column], [True])]
    below = band.delete()
    children = statement_children(below)
    if children and not keeps_dependences(below, children, dependences):
        children = []
    for k in range(len(children) or 1):
        leaf = below.child(k).child(0) if children else below
        for level in reversed(inner):
            if level is None:
                leaf = leaf.insert_mark(isl.Id(vector_mark(), context=ctx))
                continue
            members, flags = level
            if children:
                members = [m.intersect_domain(children[k]) for m in members]
            leaf = _inserted(leaf, partial, members, flags)
            if level is inner[1]:
                leaf = leaf.band_member_set_ast_loop_type(0, isl.ast_loop_type.unroll)
        below = leaf.parent().parent() if children else leaf
    below = below.insert_mark(isl.Id(f"{MARK}{index}", context=ctx))
    below = _inserted(below, partial, [_floor_div(pu, rows), _floor_div(pv, columns)], [True, True])
    below = _with_whole_rows_isolated(below, row, rows, len(children))
    depth = below.get_schedule_depth() + 2 + len(others)
    tile = RegisterTile(index, plan.array, plan.extents, plan.subscripts, (depth, depth + 1), (row, column),
                        plan.tags)
    return below.parent().parent(), tile


def _with_whole_rows_isolated(strips: isl.ScheduleNode, row: isl.UnionPwAff, rows: int,
                              n_children: int) -> isl.ScheduleNode:
    """The blocks' band (`strips`) with, in each loop between the block loops and the
    unrolled rows (`k`), the steps where every row of the block runs isolated: isl
    prints them with no guard on a row. Where a block's rows start at different steps
    (trmm's `k > i`: the block's second row joins one step after its first), the
    unrolled rows sit under guards on `k`, and gcc, with a row's guarded update in
    the loop, kept that row's vector on the stack: every step stored it and loaded it
    back (trmm at LARGE, one thread: 0.062 s, isolated 0.040 s). Returns `strips`."""
    node = strips.child(0).child(0)     # below the register tile's mark
    for k in range(n_children or 1):
        others = node.child(k).child(0) if n_children else node
        if others.get_type() == NT.band and others.band_n_member() > 0:
            others = _rows_isolated(others, row, rows)
        node = others.parent().parent() if n_children else others
    return node.parent().parent()


def _rows_isolated(others: isl.ScheduleNode, row: isl.UnionPwAff, rows: int) -> isl.ScheduleNode:
    """The band `others` with the values where every one of the block's `rows` rows
    has an instance isolated (see `_with_whole_rows_isolated`): the steps whose one
    "tile" of `rows` rows (`row` runs from 0 to rows - 1) is full."""
    instances = others.get_domain()
    depth, n = others.get_schedule_depth(), others.band_n_member()
    prefix = others.get_prefix_schedule_union_map().intersect_domain(instances)
    own = band_values(others, instances)
    rowed = isl.UnionMap.from_union_pw_aff(row).intersect_domain(instances)
    steps = schedule_values(prefix.flat_range_product(own), depth + n)
    whole = filled_tiles(prefix.flat_range_product(own).flat_range_product(rowed), depth + n, (rows,)) \
        .unwrap().domain()
    if whole.is_empty() or whole.is_equal(steps):
        return others
    option = isl.Map.from_range(whole).move_dims(isl.dim_type.in_, 0, isl.dim_type.out, 0, depth).wrap()
    node = others.band_set_ast_build_options(isl.UnionSet.from_set(option.set_tuple_name("isolate")))
    for k in range(n):
        node = node.band_member_set_isolate_ast_loop_type(k, node.band_member_get_ast_loop_type(k))
    return node


def _inserted(node: isl.ScheduleNode, template: isl.MultiUnionPwAff, members: list[isl.UnionPwAff],
              coincident: list[bool]) -> isl.ScheduleNode:
    """A permutable band of `members` inserted above `node`; returns the band."""
    space = template.get_space()
    space = space.drop_dims(isl.dim_type.set, len(members), space.dim(isl.dim_type.set) - len(members))
    values = isl.UnionPwAffList.alloc(node.get_ctx(), len(members))
    for member in members:
        values = values.add(member)
    band = node.insert_partial_schedule(isl.MultiUnionPwAff.from_union_pw_aff_list(space, values))
    band = band.band_set_permutable(1)
    for k, flag in enumerate(coincident):
        band = band.band_member_set_coincident(k, flag)
    return band


def _floor_div(member: isl.UnionPwAff, size: int) -> isl.UnionPwAff:
    return member.scale_down_val(isl.Val(size, member.get_ctx())).floor()


def _has_bands_below(points: isl.ScheduleNode) -> bool:
    def walk(node: isl.ScheduleNode) -> bool:
        if node.get_type() == NT.band:
            return True
        return any(walk(node.child(k)) for k in range(node.n_children()))
    return any(walk(points.child(k)) for k in range(points.n_children()))


def _block_accesses(points: isl.ScheduleNode, statements, array: str, u: int,
                    v: int) -> tuple[tuple[int, int], frozenset[str]] | None:
    """The subscripts of `array` that move with members `u` and `v` (as `+u`, `+v`) in
    its accesses under the band that have that form, all others fixed by the outer
    loops, and the tags of those accesses; None if none has it, if two have it with
    different subscripts, or if some access is not exact."""
    placed = placed_instances(points)
    outer = points.get_schedule_depth()
    n = points.band_n_member()
    found, tags = None, set()
    for stmt in statements:
        at = placed.intersect_domain(isl.UnionSet.from_set(stmt.domain))
        for acc in stmt.accesses:
            if acc.array != array:
                continue
            if not acc.exact:
                return None
            mapped = at.reverse().apply_range(isl.UnionMap.from_map(acc.index))
            shapes = {_shape(part.unwrap(), outer, n, u, v) for part in sets_of(mapped.wrap())}
            if len(shapes) != 1 or None in shapes:
                continue        # apart from the block
            shape, = shapes
            if found is not None and shape != found:
                return None
            found = shape
            tags.add(acc.tag)
    return None if found is None else (found, frozenset(tags))


def _block_of(points: isl.ScheduleNode, plan: BlockPlan) -> isl.UnionMap:
    """{ S[i] -> [outer values, u / rows, v / columns] }: the block an instance runs in,
    from the copy in before the loops between to the copy out after them."""
    placed = placed_instances(points)
    outer = points.get_schedule_depth()
    names = [f"s{k}" for k in range(outer + points.band_n_member())]
    u, v = names[outer + plan.rows_member], names[outer + plan.columns_member]
    rows, columns = plan.extents
    block = isl.Map(f"{{ [{', '.join(names)}] -> [{', '.join(names[:outer] + [f'floor({u} / {rows})', f'floor({v} / {columns})'])}] }}",
                    context=points.get_ctx()).align_params(placed.get_space())
    return placed.apply_range(isl.UnionMap.from_map(block))


def _apart_keep_their_values(points: isl.ScheduleNode, scop: Scop, statements, plan: BlockPlan) -> bool:
    """Whether the accesses to the array that the block does not hold may stay in memory:
    in one block, none writes an element the block holds, and none reads one that a
    statement wrote through the block earlier in the original order (memory keeps the
    element's value from before the block until the copy out). trmm's row `i` reads
    `B[i + 1][j]` before row `i + 1` updates it: two rows may share a block."""
    block_of = _block_of(points, plan)
    held, reads, writes, held_writes = None, None, None, None

    def joined(found, part):
        return part if found is None else found.union(part)
    for stmt in statements:
        for acc in stmt.accesses:
            if acc.array != plan.array:
                continue
            part = isl.UnionMap.from_map(acc.index.intersect_domain(stmt.domain))
            if acc.tag in plan.tags:
                held = joined(held, part)
                held_writes = joined(held_writes, part) if acc.is_write else held_writes
            elif acc.is_write:
                writes = joined(writes, part)
            else:
                reads = joined(reads, part)
    blocks_held = block_of.reverse().apply_range(held)
    if writes is not None and not block_of.reverse().apply_range(writes).intersect(blocks_held).is_empty():
        return False
    if reads is None or held_writes is None:
        return True
    same_block = block_of.apply_range(block_of.reverse())
    stale = held_writes.apply_range(reads.reverse()).intersect(same_block)     # writer -> reader of one element
    return stale.is_empty() or _all_later(stale, scop)


def _all_later(pairs: isl.UnionMap, scop: Scop) -> bool:
    """Whether every reader in `pairs` (writer -> reader) comes before its writer in the
    original order: it then reads the value from before the block, which memory holds."""
    times = {m.get_tuple_name(isl.dim_type.in_): m for m in maps_of(schedule_map(scop.schedule))}
    for pair in maps_of(pairs):
        writer, reader = times[pair.get_tuple_name(isl.dim_type.in_)], times[pair.get_tuple_name(isl.dim_type.out)]
        n = max(writer.dim(isl.dim_type.out), reader.dim(isl.dim_type.out))
        values = pair.apply_domain(padded(writer, n)).apply_range(padded(reader, n))
        if not values.is_subset(isl.Map.lex_gt(values.get_space().domain()).align_params(values.get_space())):
            return False
    return True


def _blocks_first(points: isl.ScheduleNode, plan: BlockPlan, dependences: isl.UnionMap | None) -> bool:
    """Whether the full blocks may run before the rest of their tile: no dependence goes
    from an instance left unblocked to one in a block, under equal outer loops (a
    coincident row member makes this so; one that carries dependences must check)."""
    if dependences is None:
        return False
    full = _full_block_instances(points, plan)
    rest = points.get_domain().subtract(full)
    outer = points.get_prefix_schedule_union_map()
    back = dependences.intersect_domain(rest).intersect_range(full)
    return back.is_empty() or back.intersect(outer.apply_range(outer.reverse())).is_empty()


def _shape(elements: isl.Map, outer: int, n: int, u: int, v: int) -> tuple[int, int] | None:
    """For schedule points -> elements, the subscripts equal to `(outer) + u` and
    `(outer) + v` when every other subscript depends on the outer values only."""
    if not elements.is_single_valued():
        return None
    rank = elements.dim(isl.dim_type.out)
    function = isl.PwMultiAff.from_map(elements)
    found: dict[str, int] = {}
    for d in range(rank):
        sub = function.get_pw_aff(d)
        for name, member in (("u", u), ("v", v)):
            shifted = sub.sub(isl.PwAff.var_on_domain(isl.LocalSpace.from_space(sub.get_domain_space()),
                                                      isl.dim_type.set, outer + member))
            if name not in found and _outer_only(shifted, outer, n):
                found[name] = d
                break
        else:
            if not _outer_only(sub, outer, n):
                return None
    if set(found) != {"u", "v"}:
        return None
    return found["u"], found["v"]


def _outer_only(value: isl.PwAff, outer: int, n: int) -> bool:
    """Whether `value` does not change with the point values (dims `outer`..`outer+n-1`)."""
    domain = value.domain()
    pairs = isl.Map.from_domain_and_range(domain, domain)
    for d in range(outer):
        pairs = pairs.equate(isl.dim_type.in_, d, isl.dim_type.out, d)
    same = isl.Map.from_pw_aff(value).apply_range(isl.Map.from_pw_aff(value).reverse())
    return pairs.is_subset(same.intersect_domain(domain).intersect_range(domain))


def _full_block_instances(points: isl.ScheduleNode, plan: BlockPlan) -> isl.UnionSet:
    """The instances under the band in whole strips. A strip is a block's rows across
    the tile's columns; it is whole where the statements that access the array reach
    every `(u, v)` of it, and then so are its blocks (the columns' tile is a multiple
    of the block's). The rows short of a block at the end (an odd `ni`: one row) and
    tiles with partial columns (edge tiles, syrk's diagonal ones) run unblocked.
    Strip by strip, since a strip's being whole is a condition on its own rows
    (`64 c0 + 2 bu + 1 < ni`), where "a tile whose strips are all whole" needs the
    parameters' remainders (`ni % 2 == 0`), on which isl's code generator splits every
    loop nest (3mm's AST: 1.5 s); block by block, columns too, puts `%` guards in the
    innermost loop of syrk's diagonal tiles."""
    placed = placed_instances(points)
    outer = points.get_schedule_depth()
    dims = outer + points.band_n_member()
    names = [f"s{k}" for k in range(dims)]
    tile_values = ", ".join(names[:outer])
    u, v = names[outer + plan.rows_member], names[outer + plan.columns_member]
    ctx, params = points.get_ctx(), placed.get_space()

    def relation(text: str) -> isl.Map:
        return isl.Map(text, context=ctx).align_params(params)
    # the point loops start at 0 in every tile, or at a multiple of the tile's size
    # (isl's tile_shift_point_loops): either way a strip starts at a multiple of its size
    rows, columns = plan.extents[0], plan.column_tile

    def within(row: str, column: str) -> str:
        return (f"{rows} * su <= {row} < {rows} * su + {rows} and "
                f"{columns} * sv <= {column} < {columns} * sv + {columns}")
    strip = relation(f"{{ [{tile_values}, su, sv] -> [{tile_values}, pu, pv] : {within('pu', 'pv')} }}")
    on_face = relation(f"{{ [{', '.join(names)}] -> [{tile_values}, {u}, {v}] }}")
    present = schedule_values(placed.intersect_domain(_instances_of(points, plan.statements)), dims).apply(on_face)
    strips = present.apply(strip.reverse())
    missing = strips.apply(strip).subtract(present)
    whole = strips.subtract(missing.apply(strip.reverse()))
    to_strip = relation(f"{{ [{', '.join(names)}] -> [{tile_values}, su, sv] : {within(u, v)} }}")
    return placed.apply_range(isl.UnionMap.from_map(to_strip)).intersect_range(isl.UnionSet.from_set(whole)).domain()


def _instances_of(points: isl.ScheduleNode, statements: frozenset[str]) -> isl.UnionSet:
    """The instances under the band of `statements` (never empty: the array's accessors)."""
    return union_of([isl.UnionSet.from_set(s) for s in sets_of(points.get_domain())
                     if s.get_tuple_name() in statements])
