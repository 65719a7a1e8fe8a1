"""Generate a kernel's body: tile loops, copies to/from shared memory and
registers with their barriers, and the point loops run by each thread.

The body is built level by level. The outer schedule (host values, then tile
indices) is cut at the depths where reference groups are copied; each slice is
an isl AST whose outer dimensions are parameters named like the loop iterators
around it (c0, c1, ...) and which never involves a thread id, so every
`__syncthreads()` placed between slices is reached by all threads of a block.
Only the innermost AST, over the point loops of one tile, is filtered by thread.
"""
from __future__ import annotations

import islpy as isl

from ..extract.model import Scop
from ..isl_budget import LIMITS, OutOfOperations, bounded, is_operation_limit
from ..isl_context import CallbackGuard, maps_of, schedule_values
from ..isl_workarounds import dims_as_params, domain_at_params, same_parameter_order
from ..memory.groups import ArrayGroup, KernelMemory
from ..schedule import Kernel
from .expr import c_expr
from .printer import AstPrinter
from .statements import linearized, print_statement


class KernelBody:
    """Prints the body of one kernel."""

    def __init__(self, scop: Scop, kernel: Kernel, memory: KernelMemory,
                 extents: dict[str, list[str]], iterator_prefix: str, *,
                 unroll_copy_shared: bool = False, unroll_gpu_tile: bool = False) -> None:
        self.scop, self.kernel, self.memory, self.extents = scop, kernel, memory, extents
        self.unroll_copy_shared, self.unroll_gpu_tile = unroll_copy_shared, unroll_gpu_tile
        self.prefix = iterator_prefix
        self.ctx = scop.ctx
        self.group_of = {tag: g for g in memory.groups if g.placement != "global" for tag in g.refs}
        self.statements = {s.name: s for s in scop.statements}
        self.levels = sorted({g.level for g in memory.groups if g.placement != "global"} | {kernel.depth})
        self.param_context = self._id_context()
        self._level_lines: dict[int, list[str]] = {}

    # -- structure --------------------------------------------------------
    def lines(self, indent: str = "  ") -> list[str]:
        decls = [f"{indent}__shared__ {g.element_type} {g.name}{_dims(g)};"
                 for g in self.memory.groups if g.placement == "shared"]
        decls += [f"{indent}{g.element_type} {g.name}{_dims(g)};"
                  for g in self.memory.groups if g.placement == "private"]
        body = self._level(self.kernel.host_depth, indent)
        guard = self._host_guard()
        if guard is not None:
            body = [f"{indent}if ({guard}) {{", *(f"  {line}" if line else line for line in body), f"{indent}}}"]
        return decls + ([""] if decls else []) + body

    def _host_guard(self) -> str | None:
        """The condition that the host values passed in are those of a launch.

        The code inside assumes it, but the host's guards around a launch need not
        state all of it: isl left out `(m + c0) % 2 == 0` before a single-thread
        kernel, which then wrote an element the program never writes."""
        depth = self.kernel.host_depth
        if depth == 0:
            return None
        launches = self._launches().align_params(self.param_context.get_space())
        context = self.param_context.align_params(launches.get_space())
        if context.is_subset(launches):
            return None
        build = isl.AstBuild.from_context(context)
        return c_expr(build.expr_from_set(launches))

    def _level(self, depth: int, indent: str) -> list[str]:
        """The code inside the outer loops [0, depth) (isl may need it at several leaves)."""
        if depth not in self._level_lines:
            self._level_lines[depth] = self._level_code(depth)
        return [indent + line if line else line for line in self._level_lines[depth]]

    def _level_code(self, depth: int) -> list[str]:
        indent = ""
        here = [g for g in self.memory.groups if g.placement != "global" and g.level == depth]
        shared = [g for g in here if g.placement == "shared"]
        deeper = [d for d in self.levels if d > depth]
        inner = self._loops(depth, deeper[0], indent) if deeper else self._points(indent)
        out: list[str] = []
        if shared:
            out.append(f"{indent}__syncthreads();")
        for g in here:
            if g.copy_in is not None:
                out += self._copy(g, g.copy_in, depth, indent, to_buffer=True)
        if any(g.copy_in is not None for g in shared):
            out.append(f"{indent}__syncthreads();")
        out += inner
        if any(g.copy_out is not None for g in shared):
            out.append(f"{indent}__syncthreads();")
        for g in here:
            if g.copy_out is not None:
                out += self._copy(g, g.copy_out, depth, indent, to_buffer=False)
        return out

    def _loops(self, start: int, stop: int, indent: str) -> list[str]:
        """Tile loops for outer dimensions [start, stop); the next level inside.

        A leaf binds every dimension of the slice that isl did not keep as a loop
        (a degenerate loop becomes a value), so the next level can use c<k>.
        """
        tiles = _as_params(self._tiles(), start, self.prefix).project_out(
            isl.dim_type.set, stop - start, self.kernel.depth - stop)
        schedule = isl.UnionMap.from_map(isl.Map.identity(tiles.get_space().map_from_set())
                                         .intersect_domain(tiles))
        bindings: dict[str, list[str]] = {}

        def at_domain(node: isl.AstNode, build: isl.AstBuild) -> isl.AstNode:
            call = node.user_get_expr()
            names = [f"{self.prefix}{k}" for k in range(start, stop)]
            values = [c_expr(call.get_op_arg(k + 1)) for k in range(stop - start)]
            key = f"level{len(bindings)}"
            bindings[key] = [f"const int {n} = {v};" for n, v in zip(names, values) if n != v]
            return node.set_annotation(isl.Id(key, context=self.ctx))

        # atomic, as PPCG's tile loops: one loop over the tiles of all statements, where
        # isl would otherwise repeat the whole level for the tiles of some (gemm's
        # `if (nk <= 0)` copy for the tile of C *= beta alone)
        root, _ = self._ast(schedule, start, at_domain, atomic=True)

        def leaf(key: str, ind: str) -> list[str]:
            if not bindings[key]:
                return self._level(stop, ind)
            return [f"{ind}{{", *(f"{ind}  {b}" for b in bindings[key]),
                    *self._level(stop, ind + "  "), f"{ind}}}"]
        return _Printer(leaf).lines(root, indent)

    def _tiles(self) -> isl.Set:
        """Every tile of this block: the range of the outer schedule."""
        if self.kernel.tiles is not None:
            return self.kernel.tiles
        return schedule_values(self.kernel.outer_schedule, self.kernel.depth)

    def _points(self, indent: str) -> list[str]:
        """The statement instances of one tile, for this thread."""
        depth = self.kernel.depth
        domain = self.kernel.domain
        if self.kernel.thread_filter is not None:
            domain = domain.intersect(self.kernel.thread_filter)
        fixed = _fix_outer(self.kernel.outer_schedule.intersect_domain(domain), depth, self.prefix)
        schedule = self.kernel.inner_schedule.intersect_domain(fixed)
        texts: dict[str, str] = {}

        def at_domain(node: isl.AstNode, build: isl.AstBuild) -> isl.AstNode:
            key = f"stmt{len(texts)}"
            texts[key] = self._statement(build)
            return node.set_annotation(isl.Id(key, context=self.ctx))

        # private buffers are indexed by the thread-mapped point loops: unrolled, the
        # indices are constants and the buffer can live in registers
        unrolled = self.kernel.n_tile if self.unroll_gpu_tile else (
            len(self.kernel.thread_ids) if any(g.placement == "private" for g in self.memory.groups) else 0)
        root, _ = self._ast(schedule, depth, at_domain, unroll=unrolled)
        return AstPrinter(texts).lines(root, indent)

    # -- AST generation ---------------------------------------------------
    def _ast(self, schedule: isl.UnionMap, first_iterator: int, at_domain, unroll: int = 0,
             atomic: bool = False):
        """isl's AST of `schedule`, iterators numbered from `first_iterator`;
        the first `unroll` schedule dimensions are unrolled, and with `atomic` the
        others are generated as one loop each (no copy of the body per piece).

        Existentials in the context can make isl's AST generator fail an internal
        check ("basic sets in scc are assumed to be disjoint", fuzz 6:66: an
        unrolled private copy) or run for minutes (the grid's wrap-around in
        seidel-2d's tile loops: 200 s, 0.5 s without it). So the first try is
        bounded in isl operations, and then the AST is asked again with the
        context's existentials dropped, then without unrolling. Both are still
        exact: the code enumerates the schedule's domain for all parameters in a
        weaker context too; it only tests more, or keeps its loops. Where the
        context has no existentials to drop, the retry under it would be the
        first try again: only the one without unrolling is left (or, without
        unrolling, the first try without a bound).
        """
        context = self._context_at(first_iterator)
        # isl's AST build mixes up parameters whose order differs between the context
        # and the schedule (a guard named b0 where the set says t0): one order for both
        schedule, context = same_parameter_order(schedule, context)
        schedule = _simplified(schedule)
        try:
            return bounded(self.ctx, LIMITS.kernel_ast,
                           lambda: self._ast_in(context, schedule, first_iterator, at_domain, unroll, atomic))
        except OutOfOperations:
            pass
        except isl.Error as exc:
            if is_operation_limit(exc):     # the step's bound (--isl-max-operations), not this one
                raise
            # any other failure of the first try falls back too, on purpose: isl's AST
            # generator fails its internal check "basic sets in scc are assumed to be
            # disjoint" under some contexts with existentials (regression
            # tests/regressions/isl_ast_disjoint_assertion: an unrolled private copy)
        weaker = context.remove_divs()
        same = weaker.is_equal(context)
        tries = [] if same and unroll else [(weaker, unroll)]
        tries += [(weaker, 0)] if unroll else []
        for k, (known, unrolled) in enumerate(tries):
            try:
                return self._ast_in(known, schedule, first_iterator, at_domain, unrolled, atomic)
            except isl.Error as exc:
                if is_operation_limit(exc) or k == len(tries) - 1:
                    raise

    def _ast_in(self, context: isl.Set, schedule: isl.UnionMap, first_iterator: int, at_domain, unroll: int,
                atomic: bool = False):
        guard = CallbackGuard()
        build = isl.AstBuild.from_context(context)
        if (unroll or atomic) and not schedule.is_empty():
            n = maps_of(schedule)[0].dim(isl.dim_type.out)
            dims = ", ".join(f"x{k}" for k in range(n))
            kinds = ["unroll" if k < unroll else "atomic" if atomic else None for k in range(n)]
            options = " ; ".join(f"[{dims}] -> {kind}[{k}]" for k, kind in enumerate(kinds) if kind)
            build = build.set_options(isl.UnionMap.read_from_str(self.ctx, f"{{ {options} }}"))
        names = [f"{self.prefix}{k}" for k in range(first_iterator, first_iterator + 64)]
        ids = isl.IdList.alloc(self.ctx, len(names))
        for name in names:
            ids = ids.add(isl.Id(name, context=self.ctx))
        build = build.set_iterators(ids)
        build, handle = build.set_at_each_domain(guard.wrap(at_domain, lambda node, _b: node))
        try:
            root = build.node_from_schedule_map(schedule)
        except isl.Error:
            guard.reraise()     # a callback's own exception, not isl's
            raise
        guard.reraise()
        del handle
        return root, build

    def _context_at(self, depth: int) -> isl.Set:
        """What is known inside the outer loops [0, depth): ids, and that c0.. is a tile
        (for the host values, `lines` checks it on entry).

        At the host depth, what is known is that the host values are those of a
        launch, not that this block has tiles there: the latter is exact too, but
        through the tiles' existentials and the block's residues it cost isl's AST
        generator seconds to minutes (seidel-2d), for no better code."""
        if depth == 0:
            return self.param_context
        known = self._launches() if depth == self.kernel.host_depth else \
            _as_params(self._tiles(), depth, self.prefix).params()
        context = self.param_context
        return context.align_params(known.get_space()).intersect(known.align_params(context.get_space()))

    def _launches(self) -> isl.Set:
        """The host values at which the kernel is launched, as parameters c0, c1, ..."""
        values = schedule_values(self.kernel.host_schedule, self.kernel.host_depth)
        return _as_params(values, self.kernel.host_depth, self.prefix).params()

    def _id_context(self) -> isl.Set:
        """Parameters known in a kernel: the SCoP's context and the id ranges."""
        k = self.kernel
        ids = k.block_ids + k.thread_ids
        bounds = k.sizes.grid + k.sizes.block
        context = self.scop.context
        if ids:
            text = " and ".join(f"0 <= {n} < {b}" for n, b in zip(ids, bounds))
            extra = isl.Set.read_from_str(self.ctx, f"[{', '.join(ids)}] -> {{ : {text} }}")
            context = context.align_params(extra.get_space()).intersect(extra.align_params(context.get_space()))
        return context

    # -- statements and copies --------------------------------------------
    def _statement(self, build: isl.AstBuild) -> str:
        schedule = isl.Map.from_union_map(build.get_schedule())
        stmt = self.statements[schedule.get_tuple_name(isl.dim_type.in_)]
        to_instance = isl.PwMultiAff.from_map(schedule.reverse())
        iterators = {name: c_expr(build.expr_from_pw_aff(to_instance.get_pw_aff(k)))
                     for k, name in enumerate(stmt.iterators)}
        references = {}
        for acc in stmt.accesses:
            index = isl.PwMultiAff.from_map(acc.index).pullback_pw_multi_aff(to_instance)
            dims = [index.get_pw_aff(k) for k in range(index.dim(isl.dim_type.out))]
            group = self.group_of.get(acc.tag)
            if group is not None:
                references[acc.tag] = group.name + "".join(
                    f"[{c_expr(build.expr_from_pw_aff(_local_index(pa, dim)))}]"
                    for pa, dim in zip(dims, group.box))
            else:
                subs = [c_expr(build.expr_from_pw_aff(pa)) for pa in dims]
                references[acc.tag] = linearized(acc.array, subs, self.extents[acc.array])
        return print_statement(stmt.body, references, iterators)

    def _copy(self, group: ArrayGroup, elements: isl.Set, depth: int, indent: str, *, to_buffer: bool) -> list[str]:
        """Loops that move `elements` between global memory and the group's buffer."""
        if group.placement == "shared":
            elements = self._spread_over_threads(group, elements)
        elements = elements.align_params(self.param_context.get_space()).gist_params(self.param_context.params()
                                                                                     .align_params(elements.get_space()))
        if elements.is_empty():
            return []
        schedule = isl.UnionMap.from_map(isl.Map.identity(elements.get_space().map_from_set())
                                         .intersect_domain(elements).reset_tuple_id(isl.dim_type.out))
        texts: dict[str, str] = {}

        def at_domain(node: isl.AstNode, build: isl.AstBuild) -> isl.AstNode:
            sched = isl.Map.from_union_map(build.get_schedule())
            element = isl.PwMultiAff.from_map(sched.reverse())
            dims = [element.get_pw_aff(k) for k in range(element.dim(isl.dim_type.out))]
            subs = [c_expr(build.expr_from_pw_aff(pa)) for pa in dims]
            local = group.name + "".join(f"[{c_expr(build.expr_from_pw_aff(_local_index(pa, dim)))}]"
                                         for pa, dim in zip(dims, group.box))
            glob = linearized(group.array, subs, self.extents[group.array])
            key = f"copy{len(texts)}"
            texts[key] = f"{local} = {glob};" if to_buffer else f"{glob} = {local};"
            return node.set_annotation(isl.Id(key, context=self.ctx))

        unroll = group.placement == "private" or self.unroll_copy_shared
        root, _ = self._ast(schedule, depth, at_domain, unroll=group.rank if unroll else 0)
        return AstPrinter(texts).lines(root, indent)

    def _spread_over_threads(self, group: ArrayGroup, elements: isl.Set) -> isl.Set:
        """Give each thread its share: innermost array dimension to x, and so on (coalesced)."""
        threads = list(zip(self.kernel.thread_ids, self.kernel.sizes.block))
        rank = elements.dim(isl.dim_type.set)
        for k, (tid, size) in zip(range(rank - 1, -1, -1), reversed(threads)):
            # the thread id as a parameter parsed by isl: an isl.Id made here would be
            # a different identifier from the "t0" of every other set (islpy's ids carry a user object)
            named = isl.Set.read_from_str(self.ctx, f"[{tid}] -> {{ : }}").get_space()
            low = group.box[k].lower.align_params(named).add_dims(isl.dim_type.in_, 1)
            ls = isl.LocalSpace.from_space(low.get_domain_space())
            var = isl.PwAff.var_on_domain(ls, isl.dim_type.set, 0)
            thread = isl.PwAff.var_on_domain(ls, isl.dim_type.param,
                                             low.get_domain_space().find_dim_by_name(isl.dim_type.param, tid))
            local = var.sub(low).sub(thread)
            residue = local.mod_val(isl.Val(size, self.ctx)).eq_set(
                isl.PwAff.zero_on_domain(isl.LocalSpace.from_space(local.get_domain_space())))
            residue = residue.insert_dims(isl.dim_type.set, 0, k).add_dims(isl.dim_type.set, rank - k - 1)
            residue = residue.set_tuple_name(elements.get_tuple_name())
            elements = elements.align_params(residue.get_space()).intersect(
                residue.align_params(elements.get_space()))
        return elements


class _Printer(AstPrinter):
    """Prints a level's loops; its leaves are the next level."""

    def __init__(self, inner) -> None:
        super().__init__({})
        self.inner = inner

    def lines(self, node: isl.AstNode, indent: str = "") -> list[str]:
        if node.get_type() == isl.ast_node_type.user:
            return self.inner(node.get_annotation().get_name(), indent)
        return super().lines(node, indent)


def _simplified(schedule: isl.UnionMap) -> isl.UnionMap:
    """Fewer existentials for isl's AST generator: equalities made explicit
    (a point value is `i - 32*c0` once c0 is known).  Nothing is gisted against the
    build context here: that context holds only where the generated code runs, and
    gisting against it once silently dropped guards (PolyBench lu)."""
    result = None
    for m in maps_of(schedule):
        part = isl.UnionMap.from_map(m.detect_equalities().coalesce())
        result = part if result is None else result.union(part)
    return result if result is not None else schedule


def _local_index(element: isl.PwAff, dim) -> isl.PwAff:
    """The position of an element in a buffer: (e - offset) / stride - lower, as isl sees it
    (so that with unrolled loops it prints as a constant)."""
    n = element.dim(isl.dim_type.in_)

    def lifted(pa: isl.PwAff) -> isl.PwAff:
        pa = pa.align_params(element.get_space()).add_dims(isl.dim_type.in_, n)
        if element.get_space().has_tuple_id(isl.dim_type.in_):
            pa = pa.set_tuple_id(isl.dim_type.in_, element.get_space().get_tuple_id(isl.dim_type.in_))
        return pa

    element = element.align_params(dim.lower.get_space())
    position = element
    if dim.stride > 1:
        position = element.sub(lifted(dim.offset)).scale_down_val(isl.Val(dim.stride, element.get_ctx())).floor()
    return position.sub(lifted(dim.lower)).coalesce()


def _dims(group: ArrayGroup) -> str:
    return "".join(f"[{e}]" for e in group.shape)



def _as_params(tiles: isl.Set, count: int, prefix: str) -> isl.Set:
    """The first `count` dimensions as parameters c0, c1, ... (outer loop iterators)."""
    return dims_as_params(tiles, isl.dim_type.set, count, prefix)


def _fix_outer(outer: isl.UnionMap, depth: int, prefix: str) -> isl.UnionSet:
    """Instances whose outer schedule values equal the parameters c0 .. c{depth-1}."""
    return domain_at_params(outer, depth, prefix)
