"""Build the polyhedral model of one SCoP region.

A pre-pass classifies every identifier (iterator, parameter, read-only scalar,
written scalar, array); a walk over the statements then builds iteration
domains, access relations and the original schedule as an isl schedule tree
(a band per loop, a sequence per block), as pet does.
"""
from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import cached_property

import islpy as isl
from pycparser import c_ast, c_generator

from ..diagnostics import CompileError
from ..isl_budget import LIMITS, refinement
from ..isl_c import c_node
from ..isl_context import constant_on, sets_of
from .accesses import PURE_FUNCTIONS, RawAccess, construct_accesses, statement_accesses, tag_references
from .affine import AFFINE_CALLS, AffineSpace, NotAffine
from .c_math import arithmetic_kind, use_float_math
from .c_types import TypeError_, VarType, resolve, resolve_casts
from .c_walk import NameScan, all_names, nodes_of, operand_ids, replaced
from .external import CALL_STATE, ExternalFunction, MemoryArgument, external_calls, memory_arguments, unwrapped
from .flat_arrays import digits_of, flat_arrays
from .calls import FileFunctions, Inlined, inline_calls
from .liveness import Liveness
from .local_arrays import expanded, expansion
from .model import Access, Array, Kill, Reference, Scop, Statement, Surroundings
from .normalize import Declaration, Marker, StatementLabel, normalize
from .pencil import Assumption, PencilKill, builtin_calls, dead_after
from .reductions import find_reductions
from .regions import Region
from .structs import FieldArrays, StructTable, expand
from .summaries import DEF, USE, build_summary_node, is_summary_node

_GEN = c_generator.CGenerator()


def describe(node: c_ast.Node) -> str:
    try:
        return _GEN.visit(node)
    except Exception:  # noqa: BLE001 - only used to word an error
        return type(node).__name__


@dataclass(frozen=True)
class _Env:
    """What is known inside a loop nest: its iterators and their domain."""

    iterators: tuple[str, ...]
    domain: isl.Set
    space: AffineSpace
    signs: tuple[int, ...]   # +1 for an increasing loop, -1 for a decreasing one


class _InMemory(Exception):
    """A loop iterator of the function is used where the model does not know its value
    (read after a loop under a branch, assigned after its loop, the start of
    `for (; i < n; i++)`): the SCoP is built again with the iterator kept in memory."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def build_scop(ctx: isl.Context, path: str, region: Region, typedefs: dict[str, c_ast.Node],
               context: str | None, assume_nonneg: bool, functions: FileFunctions | None = None,
               structs: StructTable | None = None) -> Scop | None:
    """The model of one SCoP (None: it has nothing to run); built again, with more
    iterators in memory, while a build finds one it needs there (at most once per
    iterator)."""
    in_memory: frozenset[str] = frozenset()
    while True:
        try:
            return ScopBuilder(ctx, path, region, typedefs, context, assume_nonneg, functions, structs,
                               in_memory=in_memory).build()
        except _InMemory as need:
            assert need.name not in in_memory, need.name
            in_memory |= {need.name}


class ScopBuilder:
    def __init__(self, ctx: isl.Context, path: str, region: Region,
                 typedefs: dict[str, c_ast.Node], context: str | None,
                 assume_nonneg: bool, functions: FileFunctions | None = None,
                 structs: StructTable | None = None, *, in_memory: frozenset[str] = frozenset()) -> None:
        self.ctx, self.path, self.region, self.typedefs = ctx, path, region, typedefs
        # iterators of the function kept in memory as well (as pet): each loop over one
        # stores its exit value, each assignment outside its loops is a statement, and a
        # read where its value is not known reads the variable
        self._in_memory = in_memory
        self.types: dict[str, VarType] = {}
        self.statements: list[Statement] = []
        self.kills: list[Kill] = []
        self._n_references = 0      # tags ref_0, ref_1, ... in statement order
        self._extra_params: list[str] = []
        self.locals: dict = {}
        self.inlined: list[Inlined] = []
        taken = set(all_names(region.function_node)) | set(region.symbols)
        self.fields = FieldArrays(structs, self._type, taken)
        self._label: str | None = None   # of the next statement
        self._exits: dict[int, tuple[str, isl.PwAff | None]] = {}   # id(For) -> iterator, exit value
        self._stored_iterators: dict[str, object] = {}   # iterators whose exit value is stored -> coord
        self._after: dict[str, bool] = {}                  # name -> whether code after the SCoP may read it
        self._liveness = Liveness(region)
        self._summary = None   # while a summarised call's summary is built: its accesses (summaries.py)
        self._calls_have_state = False   # a statement calls a declared-only function that is not pure
        self._assumed = False            # a __pencil_assume narrowed the context
        # what the model assumes of the parameters that the program does not ensure (a flat
        # array's rows kept whole by `ldb >= m`): checked when the SCoP starts, the original
        # code running where it fails (None: nothing assumed)
        self.checked: isl.Set | None = None
        self.external = dict(functions.external) if functions is not None else {}   # declared-only functions
        self._globals = functions.globals if functions is not None else {}
        with self.source_names():
            items = region.items
            if structs is not None and functions is not None:   # `f(&rec[i].x)`: an element of a field array
                items = self._field_arguments(items, functions)
            if functions is not None:   # calls to the file's functions become their bodies
                items = inline_calls(items, functions, region, typedefs, self.inlined, self.fields.declarations())
            if structs is not None:   # struct assignments and locals, enum constants
                items = expand(items, structs, self._type, taken)
            inlined_locals = frozenset(new for call in self.inlined for new, _old in call.renamed)
            normal = normalize(items, set(region.symbols) | _scan(items).iterators, inlined_locals)
            self.items, self.locals = normal.items, normal.locals
            for name, local in self.locals.items():
                self.types[name] = self._resolve(name, local.decl)
            if structs is not None:   # member accesses: field arrays
                self.items = tuple(self.fields.rewrite(item) for item in self.items)
                self.types.update({name: f.vt for name, f in self.fields.fields.items()})
            # PENCIL's imin ... __pencil_kill, where the file does not define them
            self.items = builtin_calls(self.items, frozenset(functions.definitions) if functions else frozenset())
            self._dead_after = dead_after(self.items)
            # declared where normalize does not go (a `while` body): C locals of that construct
            self._construct_locals = {d.name for item in self.items for d in nodes_of(item, c_ast.Decl)
                                      if d.name and d.name not in self.region.symbols}
            self.kinds = self._classify()
            self.params = tuple(n for n in self._first_use_order() if self.kinds.get(n) == "param")
            self.context = self._context(context, assume_nonneg)
            # `double *c` read as `c[i * m + j]`: the dimensions it holds (flat_arrays.py)
            candidates = {n for n, k in self.kinds.items() if k == "array" and self._flat_candidate(n)}
            self.flat = flat_arrays(self.items, candidates, self.params)

    def _flat_candidate(self, name: str) -> bool:
        """An array of the program of one dimension and no affine size (a pointer, `A[]`, `A[n * m]`)."""
        vt = self.types[name]
        if name in self.locals or name in self.fields.fields or len(vt.dims) != 1:
            return False
        space = AffineSpace(self.ctx, (), self.params, describe)
        return vt.dims[0] is None or not _affine_size(space, vt.dims[0], name)

    def _field_arguments(self, items: tuple[c_ast.Node, ...], functions: FileFunctions) -> tuple[c_ast.Node, ...]:
        """A copy of `items` where the arguments of calls to the file's functions name
        members by their field arrays (`&rec[i].x` -> `&rec_x[i]`), which the inliner
        takes as any element or row. An argument it cannot rewrite yet (a member of a
        struct local) is left to the inliner."""
        items = copy.deepcopy(items)
        for item in items:
            for call in nodes_of(item, c_ast.FuncCall):
                if not (isinstance(call.name, c_ast.ID) and call.name.name in functions.definitions) or not call.args:
                    continue
                for k, argument in enumerate(call.args.exprs):
                    try:
                        call.args.exprs[k] = self.fields.rewrite(copy.deepcopy(argument))
                    except CompileError:
                        pass
        return items

    @contextmanager
    def source_names(self) -> Iterator[None]:
        """Errors name a local as the user wrote it (`t`), not by its unique name (`t_1`),
        and an error in the body of an inlined function names the function and the call."""
        try:
            yield
        except CompileError as err:
            renamed = sorted([(u, l.source_name) for u, l in self.locals.items() if u != l.source_name]
                             + [pair for call in self.inlined for pair in call.renamed]
                             + self.fields.renamed(),
                             key=lambda pair: -len(pair[0]))
            for unique, source in renamed:
                err.message = re.sub(rf"\b{re.escape(unique)}\b", source, err.message)
            for call in self.inlined:
                if call.covers(err):
                    err.message += f" ({call.context()})"
                    break
            raise

    # -- classification ---------------------------------------------------
    def _type(self, name: str, coord) -> VarType | None:
        if name in self.types:
            return self.types[name]
        decl = self.region.symbols.get(name)
        if decl is None:
            return None
        vt = self._resolve(name, decl, coord)
        self.types[name] = vt
        return vt

    def _resolve(self, name: str, decl: c_ast.Decl, coord=None) -> VarType:
        try:
            return resolve(decl.type, self.typedefs)
        except TypeError_ as exc:
            raise CompileError.at(coord or decl.coord, f"'{name}' has an unsupported type ({exc})") from None

    def _classify(self) -> dict[str, str]:
        scan = _scan(self.items)
        iterators, written = scan.iterators, scan.written
        kinds: dict[str, str] = {}
        for name, coord in scan.used:
            if name in kinds:
                continue
            if name in iterators:
                kinds[name] = "loopvar"
                continue
            if name in self._construct_locals:
                kinds[name] = "private"   # a C variable of one statement of dynamic control
                continue
            vt = self._type(name, coord)
            if vt is None:
                raise CompileError.at(coord, f"use of undeclared identifier '{name}'")
            if vt.is_array:
                kinds[name] = "array"
                self._extent_names(vt, kinds)
            elif name in written or name in self.locals or name in self.fields.fields:
                kinds[name] = "cell"
            elif vt.is_integer:
                kinds[name] = "param"
            else:
                kinds[name] = "scalar"
        return kinds

    def _extent_names(self, vt: VarType, kinds: dict[str, str]) -> None:
        for dim in vt.dims:
            if dim is None:
                continue
            for node in operand_ids(dim):
                other = self._type(node.name, node.coord)
                if other is not None and other.is_integer and node.name not in kinds:
                    kinds[node.name] = "param"
                    self._extra_params.append(node.name)

    def _first_use_order(self) -> list[str]:
        seen: list[str] = []
        for item in self.items:
            for node in operand_ids(item):
                if node.name not in seen:
                    seen.append(node.name)
        return seen + [p for p in self._extra_params if p not in seen]

    def _context(self, text: str | None, assume_nonneg: bool) -> isl.Set:
        space = isl.Space.create_from_names(self.ctx, set=[], params=list(self.params))
        context = isl.Set.universe(space).params()
        if assume_nonneg:
            for k in range(len(self.params)):
                context = context.lower_bound_val(isl.dim_type.param, k, isl.Val(0, self.ctx))
        if text:
            try:
                extra = isl.Set.read_from_str(self.ctx, text)
            except isl.Error:
                raise CompileError(f"--ctx: cannot parse '{text}' as an isl set") from None
            if extra.dim(isl.dim_type.set) != 0:
                raise CompileError(f"--ctx: '{text}' must constrain parameters only, e.g. '[n] -> {{ : n >= 32 }}'")
            extra = _only_params(extra.params(), self.params)
            context = context.intersect_params(extra.align_params(context.get_space()))
            if context.is_empty():
                raise CompileError(f"--ctx: no parameter values satisfy '{text}'"
                                   + (" and --assume-non-negative-parameters" if assume_nonneg else ""))
        return context

    def kind_of(self, env: _Env, name: str) -> str | None:
        if name in env.iterators:
            return "iterator"
        kind = self.kinds.get(name)
        if kind == "loopvar":
            return "outside-loopvar"
        if kind is None and name in self.external:
            return "external"
        if kind is None and name in self.region.symbols:
            return "function pointer"     # a variable only ever called (never an operand)
        return kind

    def _external_calls(self, node: c_ast.Node) -> tuple[list[c_ast.FuncCall], list[MemoryArgument]]:
        """The calls of `node` to functions the file only declares, and what they reach
        through their pointer arguments (those are wrapped: external.py). A function
        no declaration names is one too: the declarations of system headers are not
        parsed (preprocess.py), and the compilers that build the output see them."""
        for name in _undeclared_callees(node, {**self.kinds, **self.region.symbols, **self.locals}):
            self.external.setdefault(name, ExternalFunction(name, None))
        calls = external_calls(node, self.external)
        return calls, memory_arguments(calls, self.external, self._rank_of)

    def _rank_of(self, name: str) -> int | None:
        """The dimensions of a variable the SCoP's statements access, as C declares it
        (a flat array's one: `c[i * m + j] - x` is a value, not a row), None for a value."""
        return len(self.types[name].dims) if self.kinds.get(name) in ("array", "cell") else None

    def _memory(self, name: str) -> bool:
        """Whether the variable `name` is in memory where no loop over it runs: a written
        scalar of the SCoP (a loop `for (; i < n; i++)` over it), or an iterator kept there."""
        return name in self._in_memory or self.kinds.get(name) == "cell"

    def _needs_memory(self, name: str, coord, what: str | None = None) -> CompileError:
        """Keep the iterator `name` in memory (the build starts again), or, for an
        iterator that is no variable of the function, the error to raise."""
        if (name in self.region.symbols or name in self.locals) and name not in self._in_memory:
            raise _InMemory(name)
        return CompileError.at(coord, what or f"'{name}' is used outside the loop that defines it "
                               "(declare it before the loop)")

    # -- walk -------------------------------------------------------------
    def build(self) -> Scop | None:
        """The SCoP's model, or None when it is empty (nothing but declarations and empty
        statements, or statements that run for no value of the parameters): the caller
        then leaves its code as it is, with a warning (stages.extract), as PPCG does."""
        with self.source_names():
            return self._build()

    def _build(self) -> Scop | None:
        space = AffineSpace(self.ctx, (), self.params, describe)
        env = _Env((), space.universe.intersect_params(self.context), space, ())
        schedule = self._block(self.items, env)
        if self._assumed and schedule is not None:   # the promises made the context smaller: so is every instance set
            self._within_context()
            schedule = schedule.intersect_domain(_union([s.domain for s in self.statements]
                                                        + [k.index.domain() for k in self.kills]))
        if schedule is None or all(s.domain.is_empty() for s in self.statements):
            return None
        local_arrays = self._expanded_local_arrays()
        with_kills = schedule
        if self.kills:
            schedule = schedule.intersect_domain(_union(s.domain for s in self.statements))
        arrays = self._arrays() + self._local_arrays() + local_arrays
        if self._calls_have_state:
            arrays += (Array(CALL_STATE, "int", (), (), is_scalar=True, local=True, live_after=False, hidden=True),)
        struct_variables, struct_types = self.fields.struct_variables(arrays)
        scop = Scop(
            ctx=self.ctx, file=self.path, function=self.region.function,
            start_line=self.region.start.coord.line, end_line=self.region.end.coord.line,
            parameters=self.params, parameter_types=tuple(self.types[p].base for p in self.params),
            context=self.context,
            arrays=arrays, struct_variables=struct_variables, struct_types=struct_types,
            scalars_read_only=tuple((n, self.types[n].base) for n, k in self.kinds.items() if k == "scalar"),
            statements=tuple(self.statements), schedule=schedule,
            used_names=frozenset(all_names(self.region.function_node)) | frozenset(self.locals),
            kills=tuple(self.kills), schedule_with_kills=with_kills if self.kills else None,
            external_calls=self._first_calls(), surroundings=_surroundings(self.region),
            checked=self.checked,
        )
        return replace(scop, reductions=find_reductions(scop))

    def _first_calls(self) -> tuple[tuple[str, int, int, bool], ...]:
        first: dict[str, tuple[str, int, int, bool]] = {}
        for stmt in self.statements:
            for name in stmt.calls:
                if name in self.external and name not in first:
                    first[name] = (name, stmt.line, stmt.col, self.external[name].pure)
        return tuple(first.values())

    def _block(self, items, env: _Env) -> isl.Schedule | None:
        result = None
        values = dict(env.space.values)
        for item in items:
            here = _Env(env.iterators, env.domain, env.space.bind(values), env.signs)
            # before building it: the build tags its references and writes known values into it
            update, written = _scalar_update(item), _scan([item]).written
            value = self._updated_value(update, here) if update is not None else None
            part = self._statement(item, here)
            if part is not None:
                result = part if result is None else result.sequence(part)
            self._values_after(item, update, value, written, values)
        return result

    # -- values the front end knows (as pet: exit values, affine scalars) --
    def _values_after(self, item: c_ast.Node, update: tuple[str, str, c_ast.Node | None] | None,
                      value: isl.PwAff | None, written: set[str], values: dict[str, isl.PwAff]) -> None:
        """Update `values` (scalar -> its value as a function of env's dimensions) for
        the point after `item`: `k = <affine>;`, `k += <affine>;`, `k++;` give k a known
        value; any other write of a name forgets it (everywhere inside a loop or branch:
        it may run again, or not at all); a loop over an iterator declared before it
        gives the iterator its exit value."""
        if update is not None:
            name = update[0]
            values.pop(name, None)
            if value is not None:
                values[name] = value
            return
        if isinstance(item, Declaration):
            values.pop(item.name, None)
            return
        for name in written:
            values.pop(name, None)
        if isinstance(item, c_ast.For) and id(item) in self._exits:
            it, value = self._exits[id(item)]
            if value is not None:
                values[it] = value

    def _updated_value(self, update: tuple[str, str, c_ast.Node | None], env: _Env) -> isl.PwAff | None:
        name, op, rvalue = update
        vt = self.types.get(name)
        if name in self._in_memory:
            vt = self._type(name, None)
        if not self._memory(name) or vt is None or vt.dims or not set(vt.base.split()) <= {"int", "long", "signed"}:
            return None   # only (signed) int and long: the value is the integer isl computes (no wrap-around)
        old = env.space.values.get(name)
        try:
            value = env.space.expr(rvalue, "value") if rvalue is not None else env.space.const(1)
        except CompileError:
            return None
        if op == "=":
            return value
        if old is None or op not in ("+=", "-="):
            return None
        return old.add(value) if op == "+=" else old.sub(value)

    def _exit_value(self, node: c_ast.For, step: int, domain: isl.Set, env: _Env,
                    start: isl.PwAff | None) -> isl.PwAff | None:
        """The iterator's value after the loop, as a function of the outer dimensions
        (`start` is its first value, a function of those):
        its first value where the loop runs no iteration, else its last plus the step
        (the domain runs from the first value by the step up to the first value that
        fails the condition: `_until_first_failure`)."""
        if isinstance(node.init, c_ast.DeclList) or start is None:
            return None   # `for (int i = ...)`: no `i` after the loop
        depth = len(env.iterators)
        as_map = isl.Map.from_range(domain).move_dims(isl.dim_type.in_, 0, isl.dim_type.out, 0, depth)
        last = (as_map.lexmax_pw_multi_aff() if step > 0 else as_map.lexmin_pw_multi_aff()).get_pw_aff(0)
        ran = last.domain()
        after = last.add(env.space.const(step).intersect_domain(ran))
        return after.union_add(start.intersect_domain(env.domain.subtract(ran))).coalesce()

    def _statement(self, node: c_ast.Node, env: _Env) -> isl.Schedule | None:
        if isinstance(node, c_ast.Compound):
            return self._block(node.block_items or [], env)
        if isinstance(node, (c_ast.While, c_ast.DoWhile)):
            return self._dynamic(node, env)
        if isinstance(node, c_ast.For):
            if _leaves_early(node):
                return self._dynamic(node, env)
            return self._then_store_exit(node, env, self._for(node, env))
        if isinstance(node, c_ast.If):
            return self._if(node, env)
        if isinstance(node, (c_ast.EmptyStatement, c_ast.Pragma)):
            return None
        if isinstance(node, StatementLabel):   # `A: B: x = 0;` names x's statement "A, B"
            self._label = node.name if self._label is None else f"{self._label}, {node.name}"
            return None
        if isinstance(node, Declaration):
            return self._kill(node, env)
        if isinstance(node, Assumption):
            self._assume(node, env)
            return None
        if isinstance(node, PencilKill):
            return self._pencil_kill(node, env)
        if isinstance(node, (c_ast.Decl, c_ast.DeclList)):
            raise CompileError.at(node.coord, "declaration inside a SCoP is not supported yet "
                                  "(declare the variable before #pragma scop)")
        if self._summary is not None or is_summary_node(node):
            return build_summary_node(self, node, env)
        return self._assignment(node, env)

    def _if(self, node: c_ast.If, env: _Env) -> isl.Schedule | None:
        try:
            cond = env.space.condition(node.cond, "if condition")
        except NotAffine as cause:
            return self._dynamic(node, env, cause)
        then = self._statement(node.iftrue, _Env(env.iterators, env.domain.intersect(cond), env.space, env.signs))
        if node.iffalse is None:
            return then
        other = self._statement(node.iffalse, _Env(env.iterators, env.domain.subtract(cond),
                                                  env.space, env.signs))
        if then is None or other is None:
            return then or other
        return then.sequence(other)

    def _for(self, node: c_ast.For, env: _Env) -> isl.Schedule | None:
        it, init = _loop_init(node)
        entry = None     # the start of `for (; i < n; i++)`: the value `i` has here
        if init is None:
            node.init = None    # `for (i; ...)`: `i` alone does nothing
            entry = env.space.values.get(it)
            if entry is None:   # not known: the variable's value, as a while loop would read it (pet)
                if not self._memory(it):
                    raise self._needs_memory(it, node.coord, f"loop over '{it}' starts from the value '{it}' "
                                             f"has before it, which is not known there: write 'for ({it} = "
                                             f"<start>; ...)'")
                return self._dynamic(node, env)
            node.init = c_ast.Assignment("=", c_ast.ID(it, node.coord), self._value_node(env, it, node.coord),
                                         node.coord)
        try:
            step = _loop_step(node, it)
        except NotAffine as cause:
            return self._dynamic(node, env, cause)
        if node.cond is None:   # `for (i = 0; ; i++)`: left by a `break`, if at all (as pet: a while loop)
            return self._dynamic(node, env)
        iterators = env.iterators + (it,)
        depth = len(env.iterators)
        space = AffineSpace(self.ctx, iterators, self.params, describe)
        to_outer = isl.MultiAff.project_out_map(space.space, isl.dim_type.set, depth, 1)
        outer_values = {n: v.pullback_multi_aff(to_outer) for n, v in env.space.values.items() if n != it}
        written = _scan([node]).written     # the body may run again: those values are not known in it
        space = space.bind(outer_values)
        domain = env.domain.add_dims(isl.dim_type.set, 1).set_dim_name(
            isl.dim_type.set, depth, space.space.get_dim_name(isl.dim_type.set, depth))
        var = space.var(it)
        if init is not None and any(n.name == it for n in operand_ids(init)):
            raise CompileError.at(node.coord, f"loop over '{it}' starts from its own previous value")
        try:
            start = space.expr(init, "loop initialisation") if entry is None else entry.pullback_multi_aff(to_outer)
            space = space.bind({n: v for n, v in outer_values.items() if n not in written})
            holds = space.condition(node.cond, "loop condition")
        except NotAffine as cause:
            return self._dynamic(node, env, cause)
        bound = var.ge_set(start) if step > 0 else var.le_set(start)
        steps = domain.intersect(bound)     # every value the iterator could take, in order
        if abs(step) > 1:
            steps = steps.intersect(var.sub(start).mod_val(isl.Val(abs(step), self.ctx)).eq_set(space.const(0)))
        domain = _until_first_failure(steps, steps.intersect(holds), depth, step)
        if not _bounded(domain, depth):
            # the condition does not bound the iterator for some values of the outer
            # dimensions (`i != n` from above n, a step that skips n, a condition on
            # another variable): as pet, the loop is a while loop, run as written
            return self._dynamic(node, env)
        try:
            start_here = entry if entry is not None else env.space.expr(init, "loop initialisation")
        except CompileError:
            start_here = None
        self._exits[id(node)] = (it, self._exit_value(node, step, domain, env, start_here))
        inner = _Env(iterators, domain, space, env.signs + (1 if step > 0 else -1,))
        body = self._statement(node.stmt, inner)
        if body is None:
            return None
        return body.insert_partial_schedule(_loop_schedule(body.get_domain(), depth, inner.signs[-1]))

    def _read_after(self, name: str) -> bool:
        """Whether code after the SCoP may read the function's variable `name`."""
        if name not in self._after:
            self._after[name] = name in self.region.symbols and not self._liveness.unused_after(name)
        return self._after[name]

    def _then_store_exit(self, node: c_ast.For, env: _Env, loop: isl.Schedule | None) -> isl.Schedule | None:
        """`loop`, followed by a statement that stores the iterator's exit value where
        code after the SCoP may read the iterator (as pet does). The store runs once,
        the last time the loop runs, so that it adds no dependence between iterations
        of the loops around it."""
        it = _loop_iterator(node)
        if it is None or id(node) not in self._exits or isinstance(node.init, c_ast.DeclList):
            return loop
        every = self._memory(it)   # read in the SCoP too: stored each time the loop ends
        if not every and (it in self.locals or not self._read_after(it)):
            return loop
        value = self._exits[id(node)][1]
        if value is None:
            raise CompileError.at(node.coord, f"'{it}' may be read after the SCoP, and its value "
                                  "after this loop is not known")
        name = f"S_{len(self.statements)}"
        domain = (env.domain if every else _last_instance(env.domain, env.signs)).set_tuple_name(name)
        if domain.is_empty():   # the loop never runs (a branch no parameter value takes)
            return loop
        variable = isl.Set.universe(isl.Space.set_alloc(self.ctx, 0, 0)).set_tuple_name(it)
        index = isl.Map.from_domain_and_range(domain, variable.align_params(domain.get_space()))
        tag = f"ref_{self._n_references}"
        self._n_references += 1
        self._stored_iterators.setdefault(it, node.coord)
        coord = node.coord
        store = c_ast.Assignment("=", Reference(tag, coord), self._value_node(env, it, coord, value), coord)
        self.statements.append(Statement(name, domain, env.iterators, (Access(it, index, False, True, tag),),
                                         store, coord.line if coord else 0, coord.column if coord else 0))
        stored = isl.Schedule.from_domain(isl.UnionSet.from_set(domain))
        return stored if loop is None else loop.sequence(stored)

    def _assignment(self, node: c_ast.Node, env: _Env) -> isl.Schedule:
        exits: set[str] = set()   # iterators read after their loop: their exit values

        update = _scalar_update(node)

        def kind_of(name: str) -> str | None:
            kind = self.kind_of(env, name)
            if kind == "outside-loopvar":
                if name in env.space.values and not (update is not None and update[0] == name):
                    exits.add(name)
                    return "param"    # no memory: a function of the outer iterators and parameters
                if name not in self._in_memory:
                    raise self._needs_memory(name, node.coord)
                self._type(name, node.coord)
                self._stored_iterators.setdefault(name, node.coord)
                return "cell"     # assigned, or its value here is not known: the variable
            return kind
        calls, reached = self._external_calls(node)
        return self._new_statement(node, statement_accesses(node, kind_of), env, exits, must=True,
                                   calls=calls, reached=reached)

    def _new_statement(self, node: c_ast.Node, raw: list[RawAccess], env: _Env, exits: set[str], *,
                       must: bool, calls: list[c_ast.FuncCall] = (),
                       reached: list[MemoryArgument] = ()) -> isl.Schedule:
        """The statement of `node` with the references `raw` (its writes may-writes
        unless `must`), and each iterator of `exits` replaced by its known value.
        `calls`: its calls to declared-only functions, `reached` what they may reach
        through their pointer arguments (external.py)."""
        name = f"S_{len(self.statements)}"
        domain = env.domain.set_tuple_name(name)
        tags = [f"ref_{self._n_references + k}" for k in range(len(raw))]
        self._n_references += len(raw)
        accesses = [self._access(a, tag, env, domain, must) for a, tag in zip(raw, tags)]
        if calls:
            accesses += self._call_accesses(calls, reached, env, domain)
            node = unwrapped(node)
        resolve_casts(node, self.typedefs)
        use_float_math(node, lambda n: self._arithmetic_kind(env, n), self._cast_kind)
        pairs = [(a.ref, tag) for a, tag in zip(raw, tags)]
        values = {n: self._value_node(env, n, node.coord) for n in exits}
        for k, acc in enumerate(accesses):
            if not acc.exact:   # printed from the source: its own references tagged too
                subscripts = tuple(sub if sub is None else _with_values(tag_references(sub, pairs), values)
                                   for sub in acc.subscripts)
                accesses[k] = Access(acc.array, acc.index, acc.is_read, acc.is_write, acc.tag, acc.must, subscripts)
        node = tag_references(node, pairs)
        if exits:
            node = _with_values(node, values)
        coord = node.coord
        callees = tuple(dict.fromkeys(c.name.name for c in calls))
        self.statements.append(Statement(name, domain, env.iterators, tuple(accesses), node,
                                         coord.line if coord else 0, coord.column if coord else 0, self._label,
                                         calls=callees))
        self._label = None
        return isl.Schedule.from_domain(isl.UnionSet.from_set(domain))

    def _call_accesses(self, calls: list[c_ast.FuncCall], reached: list[MemoryArgument], env: _Env,
                       domain: isl.Set) -> list[Access]:
        """What calls to declared-only functions may access (external.py): the memory
        their pointer arguments reach, the file's globals the SCoP uses, and the state
        hidden behind the functions, unless they are all pure."""
        pure = all(self.external[c.name.name].pure for c in calls)
        found: list[tuple[str, isl.Map, bool]] = []
        for arg in reached:
            if arg.element is not None:
                raw = RawAccess(arg.array, arg.element, True, False, arg.coord)
                relation = self._access(raw, "ref_call", env, domain).index
            else:
                relation = self._whole_array(arg.array, env, domain, arg.coord)
            found.append((arg.array, relation, arg.written and not pure))
        if not pure:
            for name in sorted(self._file_globals()):
                found.append((name, self._whole_array(name, env, domain, calls[0].coord), True))
            state = isl.Set.universe(isl.Space.set_alloc(self.ctx, 0, 0)).set_tuple_name(CALL_STATE)
            found.append((CALL_STATE, isl.Map.from_domain_and_range(domain, state.align_params(domain.get_space())),
                          True))
            self._calls_have_state = True
        accesses = []
        for array, relation, written in found:
            tag = f"ref_{self._n_references}"
            self._n_references += 1
            accesses.append(Access(array, relation, True, written, tag, must=array == CALL_STATE))
        return accesses

    def _file_globals(self) -> set[str]:
        """The variables of the file's scope that the SCoP uses as memory."""
        return {name for name, kind in self.kinds.items() if kind in ("array", "cell")
                and name in self._globals and self.region.symbols.get(name) is self._globals[name]}

    def _whole_array(self, name: str, env: _Env, domain: isl.Set, coord) -> isl.Map:
        """{ S[i..] -> A[a..] }: every element of `name` (a scalar: itself)."""
        vt = self.types[name]
        if vt.dims and name in self.locals:
            raise CompileError.at(coord, f"array '{name}', declared in the SCoP, passed to a function the file "
                                  "only declares (declare it before #pragma scop)")
        if any(dim is None for dim in vt.dims):
            raise CompileError.at(coord, f"a call to a function the file only declares may access all of "
                                  f"array '{name}', which has no declared size (declare its size)")
        relation = isl.Map.from_domain_and_range(
            domain, isl.Set.universe(isl.Space.create_from_names(self.ctx, set=[], params=list(self.params))))
        raw = RawAccess(name, (), True, True, c_ast.ID(name, coord))
        for k in range(len(vt.dims)):
            part = self._whole_dimension(raw, vt, k, env, None)
            relation = relation.flat_range_product(part.set_tuple_name(isl.dim_type.in_, domain.get_tuple_name()))
        return relation.set_tuple_name(isl.dim_type.out, name).intersect_domain(domain)

    def _dynamic(self, node: c_ast.Node, env: _Env, cause: NotAffine | None = None) -> isl.Schedule:
        """Control that depends on data, as one statement (pet's encapsulated dynamic
        control): an `if` whose condition reads memory or is not affine, a `while` or
        `do` loop, a `for` loop that leaves early or whose header is not affine. The
        construct runs as written, where its statement runs (in a kernel: in one
        thread). It reads all it may read; its writes are may-writes; a subscript the
        model cannot know covers the array's extent. Its own loop iterators and
        locals are C variables of the construct, declared in it."""
        if self._summary is not None:   # a summary must be static-control
            raise cause or CompileError.at(node.coord, "control that depends on data in an access summary")
        own = _own_variables(node)
        memory = {n for n in own.iterators - own.declared_in_loops if self._memory(n)}
        for name in sorted(own.iterators - own.declared_in_loops - memory):
            if name not in self.locals and self._read_after(name):   # the construct must leave its value
                raise self._needs_memory(name, node.coord)
        own = _Own(own.iterators - memory, own.declared_in_loops, own.locals)
        written = _scan([node]).written
        here = _Env(env.iterators, env.domain,
                    env.space.bind({n: v for n, v in env.space.values.items() if n not in written}), env.signs)
        exits: set[str] = set()
        private = own.iterators | own.locals | self._construct_locals

        def kind_of(name: str) -> str | None:
            if name in env.iterators:
                return "iterator"
            if name in private:
                return "private"
            kind = self.kind_of(here, name)
            if kind == "outside-loopvar":
                if name in memory or name not in here.space.values:
                    if name not in self._in_memory:
                        raise self._needs_memory(name, node.coord)
                    self._type(name, node.coord)
                    self._stored_iterators.setdefault(name, node.coord)
                    return "cell"   # the construct reads and writes the variable
                exits.add(name)
                return "param"
            return kind
        calls, reached = self._external_calls(node)
        raw = construct_accesses(node, kind_of)
        body = self._declaring(node, own)
        return self._new_statement(body, raw, here, exits, must=False, calls=calls, reached=reached)

    def _declaring(self, node: c_ast.Node, own: _Own) -> c_ast.Node:
        """`node` with its locals declared where they start (their markers), and in a
        block around it, the iterators of its loops that the SCoP's function declares."""
        node = replaced(node, {id(marker): _declared(self.locals[marker.name].decl, marker.name)
                               if isinstance(marker, Declaration) else c_ast.EmptyStatement(marker.coord)
                               for marker in nodes_of(node, Marker)})
        outer = [_declared(self.region.symbols[n], n) for n in sorted(own.iterators)
                 if n in self.region.symbols and n not in own.declared_in_loops]
        return c_ast.Compound(outer + [node], node.coord) if outer else node

    def _value_node(self, env: _Env, name: str, coord, value: isl.PwAff | None = None) -> c_ast.Node:
        """C for the known value of `name` (outer iterators by their C names, which code
        generation replaces as it does in the rest of the statement; parameters)."""
        value = (env.space.values[name] if value is None else value).gist(env.domain).coalesce()
        dims = value.dim(isl.dim_type.in_)
        names = [value.get_dim_name(isl.dim_type.in_, k) for k in range(dims)]
        if any(n not in env.iterators for n, k in zip(names, range(dims)) if value.involves_dims(isl.dim_type.in_, k, 1)):
            raise CompileError.at(coord, f"'{name}' is used outside the loop that defines it")
        on_params = value.move_dims(isl.dim_type.param, value.dim(isl.dim_type.param), isl.dim_type.in_, 0, dims)
        on_params = on_params.project_domain_on_params()
        build = isl.AstBuild.from_context(isl.Set.universe(on_params.get_domain_space()))
        return c_node(build.expr_from_pw_aff(on_params))

    def _kill(self, node: Declaration, env: _Env) -> isl.Schedule:
        name = f"kill_{len(self.kills)}"
        domain = env.domain.set_tuple_name(name)
        vt = self.types[node.name]
        if vt.dims:     # every element of this iteration's copy of the array
            index = expansion(self.locals[node.name].depth, domain)
            for k in range(len(vt.dims)):
                whole = self._whole_dimension(RawAccess(node.name, (), False, True, node), vt, k, env, None)
                index = index.flat_range_product(whole.set_tuple_name(isl.dim_type.in_, name))
            index = index.set_tuple_name(isl.dim_type.out, node.name)
        else:
            variable = isl.Set.universe(isl.Space.set_alloc(self.ctx, 0, 0)).set_tuple_name(node.name)
            index = isl.Map.from_domain_and_range(domain, variable.align_params(domain.get_space()))
        self.kills.append(Kill(name, node.name, index.intersect_domain(domain), f"ref_{self._n_references}"))
        self._n_references += 1
        return isl.Schedule.from_domain(isl.UnionSet.from_set(domain))

    def _within_context(self) -> None:
        """Each statement's and kill's instances limited to the context (what the
        assumptions promised): the stages after compare domains with the context."""
        self.statements = [replace(s, domain=s.domain.intersect_params(self.context),
                                   accesses=tuple(replace(a, index=a.index.intersect_params(self.context))
                                                  for a in s.accesses)) for s in self.statements]
        self.kills = [replace(k, index=k.index.intersect_params(self.context)) for k in self.kills]

    def _assume(self, node: Assumption, env: _Env) -> None:
        """The context without the parameter values for which the assumption fails at
        some instance where it is reached (pet's reading of `__pencil_assume`)."""
        try:
            holds = env.space.condition(node.condition, "assumption")
        except CompileError:   # reads memory, or is not affine: a promise left unused
            return
        fails = env.domain.subtract(holds).params()
        self.context = self.context.subtract(fails.align_params(self.context.get_space())).coalesce()
        self._assumed = True

    def _pencil_kill(self, node: PencilKill, env: _Env) -> isl.Schedule | None:
        """A kill of the model for each variable or element `__pencil_kill` names that
        the SCoP accesses (one it does not access has no values here to kill)."""
        killed = []
        for target in node.targets:
            raw = _kill_target(target)
            if raw is None or self.kinds.get(raw.array) not in ("array", "cell"):
                continue
            name = f"kill_{len(self.kills)}"
            domain = env.domain.set_tuple_name(name)
            if raw.subscripts or not self.types[raw.array].dims:
                index = self._access(raw, f"ref_{self._n_references}", env, domain).index \
                    if raw.subscripts else isl.Map.from_domain_and_range(domain, isl.Set.universe(
                        isl.Space.set_alloc(self.ctx, 0, 0)).set_tuple_name(raw.array).align_params(domain.get_space()))
            else:
                index = self._whole_array(raw.array, env, domain, target.coord)
            self.kills.append(Kill(name, raw.array, index.intersect_domain(domain), f"ref_{self._n_references}"))
            self._n_references += 1
            killed.append(isl.Schedule.from_domain(isl.UnionSet.from_set(domain)))
        if not killed:
            return None
        schedule = killed[0]
        for more in killed[1:]:
            schedule = schedule.sequence(more)
        return schedule

    def _arithmetic_kind(self, env: _Env, name: str) -> str:
        """'int', 'float' or 'double': the C type of a variable of this statement."""
        if name in env.iterators or self.kinds.get(name) in ("param", "loopvar", None):
            return "int"
        return arithmetic_kind(self.types[name].base)

    def _cast_kind(self, typename: c_ast.Typename) -> str:
        try:
            return arithmetic_kind(resolve(typename.type, self.typedefs).base)
        except TypeError_:
            return "double"

    def _access(self, raw: RawAccess, tag: str, env: _Env, domain: isl.Set, must: bool = True) -> Access:
        """The access of one reference. A subscript that is not affine (`A[B[i]]`,
        `A[i * i]`) covers its dimension's extent: the access is then a may-access,
        printed with the source's subscripts."""
        vt = self.types[raw.array]
        if len(raw.subscripts) != len(vt.dims):
            raise CompileError.at(raw.ref.coord, f"'{raw.array}' has {len(vt.dims)} dimensions but "
                                  f"is accessed with {len(raw.subscripts)} subscripts")
        local = self.locals.get(raw.array)
        if local is not None and vt.dims:   # an array declared in the SCoP: expanded over the loops around it
            relation = expansion(local.depth, domain)
            printed: list[c_ast.Node | None] = [None] * local.depth
        else:
            relation = isl.Map.from_domain_and_range(
                domain, isl.Set.universe(isl.Space.create_from_names(self.ctx, set=[], params=list(self.params))))
            printed = []
        subscripts = raw.subscripts if raw.array not in self.flat else self._flat_digits(raw, env, domain)
        for k, sub in enumerate(subscripts):
            try:
                part = env.space.expr(sub, "array subscript").as_map()
                printed.append(None)
            except NotAffine as err:
                if self._summary is not None:
                    raise   # a summary's accesses are exact (summaries.py)
                part = self._whole_dimension(raw, vt, k, env, err)
                printed.append(sub)
            relation = relation.flat_range_product(part.set_tuple_name(isl.dim_type.in_, domain.get_tuple_name()))
        relation = relation.set_tuple_name(isl.dim_type.out, raw.array).intersect_domain(domain)
        exact = all(p is None for p in printed)
        return Access(raw.array, relation, raw.is_read, raw.is_write, tag, must=must and exact,
                      subscripts=None if exact else tuple(printed))

    def _flat_digits(self, raw: RawAccess, env: _Env, domain: isl.Set) -> tuple[c_ast.Node, ...]:
        """The digits of a reference to a flat array (flat_arrays.py), each inner one
        checked to stay within its size on the reference's instances: only then is the
        element the digits name the one the program's subscript names."""
        sizes = self.flat[raw.array]
        found = digits_of(raw.subscripts[0], sizes)
        text = describe(raw.ref)
        if found is None:
            raise CompileError.at(raw.ref.coord, f"'{text}' does not split into affine digits over the sizes "
                                  f"{', '.join(sizes)} that the other references of '{raw.array}' use")
        for digit, size in zip(found[1:], sizes):
            try:
                value = env.space.expr(digit, "array subscript")
            except NotAffine:
                raise CompileError.at(raw.ref.coord, f"non-affine array subscript: '{text}' (its part "
                                      f"'{describe(digit)}' within rows of {size} is not affine), and array "
                                      f"'{raw.array}' has no declared size to bound the access by") from None
            within = value.ge_set(env.space.const(0)).intersect(value.lt_set(env.space.var(size)))
            outside = domain.subtract(within.set_tuple_name(domain.get_tuple_name()))
            if not outside.is_empty():
                runs = domain.params()
                needed = runs.subtract(outside.params()).gist(runs).coalesce()
                if not needed.is_empty() and self._checks_at_run_time:
                    self._check_at_run_time(needed)
                    continue
                hint = f" (a --ctx states what it needs: '{needed}')" if not needed.is_empty() else ""
                raise CompileError.at(raw.ref.coord, f"'{text}' is not within one row of '{raw.array}', which "
                                      f"the SCoP reads as rows of {size} elements: that needs 0 <= "
                                      f"{describe(digit)} < {size}, which the loops around it do not ensure{hint}")
        return tuple(found)

    @cached_property
    def _checks_at_run_time(self) -> bool:
        """Whether the SCoP's code may check an assumption when it starts and run its
        original code where it fails: its region is whole lines (`#pragma scop` and
        `#pragma endscop` alone on theirs) and declares nothing that code after it names
        (the check's braces would hide it)."""
        try:
            with open(self.path, encoding="utf-8", errors="surrogateescape") as handle:
                lines = handle.read().split("\n")
        except OSError:
            return False
        pragmas = [self.region.start.coord, self.region.end.coord]
        return all(c is not None and c.file in (self.path, None) and 0 < c.line <= len(lines)
                   and re.fullmatch(r"\s*#\s*pragma\s+(end)?scop\s*", lines[c.line - 1]) for c in pragmas) \
            and not any(isinstance(item, c_ast.Decl) and self._liveness.named_after(item.name)
                        for item in self.region.items)

    def _check_at_run_time(self, needed: isl.Set) -> None:
        """Assume `needed` (parameters), checked when the SCoP starts (`Scop.checked`).
        The context stays as it is: the model is exact wherever the check holds, and the
        scheduled code runs nowhere else, so its dependences and schedule need not know
        the assumption (which can be a union of many pieces: fuzz 2986:33's ten made
        isl's scheduler 22 times slower when they narrowed the context)."""
        needed = needed.align_params(self.context.get_space())
        self.checked = needed if self.checked is None else self.checked.intersect(needed).coalesce()

    def _whole_dimension(self, raw: RawAccess, vt: VarType, k: int, env: _Env, why: NotAffine | None) -> isl.Map:
        """{ [i..] -> [o] : 0 <= o < extent } for dimension `k` of the array."""
        dim = vt.dims[k]
        if dim is None:
            reason = why.message if why is not None else f"'{raw.array}' is declared in the SCoP"
            raise CompileError.at(raw.ref.coord, f"{reason}, and array '{raw.array}' has no declared "
                                  "size to bound the access by") from None
        try:
            extent = AffineSpace(self.ctx, (), self.params, describe).expr(dim, f"size of array '{raw.array}'")
        except NotAffine:
            reason = why.message if why is not None else f"'{raw.array}' is declared in the SCoP"
            raise CompileError.at(raw.ref.coord, f"{reason}, and the size of array '{raw.array}' "
                                  f"('{describe(dim)}') is not affine, so it cannot bound the access (pass the size "
                                  "as a parameter of its own)") from None
        one = isl.Space.create_from_names(self.ctx, set=["o"], params=list(self.params))
        ls = isl.LocalSpace.from_space(one)
        var = isl.PwAff.var_on_domain(ls, isl.dim_type.set, 0)
        bound = extent.project_domain_on_params().align_params(one).add_dims(isl.dim_type.in_, 1)
        values = var.ge_set(isl.PwAff.zero_on_domain(ls)).intersect(var.lt_set(bound))
        return isl.Map.from_domain_and_range(env.space.universe, values)

    # -- arrays -----------------------------------------------------------
    def _arrays(self) -> tuple[Array, ...]:
        arrays = []
        for name, kind in self.kinds.items():
            if kind not in ("array", "cell") or name in self.locals:
                continue
            vt = self.types[name]
            if name in self.fields.fields:
                arrays.append(self.fields.field_array(name, *self._extents(name, vt),
                                                      vt.coord.line if vt.coord else None))
                continue
            scalar = kind == "cell"
            extents, known = self._extents(name, vt)
            arrays.append(Array(name, vt.base, extents, known, is_scalar=scalar,
                                declared_line=vt.coord.line if vt.coord else None, flat=name in self.flat,
                                before_first=bool(known) and not known[0] and self._before_first(name),
                                live_after=not (scalar and self._liveness.unused_after(name))
                                and name not in self._dead_after))
        for name, coord in self._stored_iterators.items():
            if self.kinds.get(name) == "cell" or name in self.locals:
                continue    # a scalar of the SCoP already
            vt = self._type(name, coord)
            arrays.append(Array(name, vt.base, (), (), is_scalar=True,
                                declared_line=vt.coord.line if vt.coord else None,
                                live_after=self._read_after(name)))
        return tuple(arrays)

    def _local_arrays(self) -> tuple[Array, ...]:
        """The scalar locals that some statement accesses: scalars of the SCoP alone."""
        accessed = {a.array for s in self.statements for a in s.accesses}
        return tuple(Array(name, self.types[name].base, (), (), is_scalar=True,
                           declared_line=local.decl.coord.line if local.decl.coord else None,
                           local=True, live_after=False)
                     for name, local in self.locals.items() if name in accessed and not self.types[name].dims)

    def _expanded_local_arrays(self) -> tuple[Array, ...]:
        """The arrays declared in the SCoP that some statement accesses, expanded
        (extract/local_arrays.py); their accesses and kills start at index 0."""
        arrays = []
        for name, local in self.locals.items():
            if self.types[name].dims:
                line = local.decl.coord.line if local.decl.coord else None
                self.statements, self.kills, array = expanded(name, self.types[name].base, self.statements,
                                                              self.kills, self.context, line)
                if array is not None:
                    arrays.append(array)
        return tuple(arrays)

    def _extents(self, name: str, vt: VarType) -> tuple[tuple[isl.PwAff, ...], tuple[bool, ...]]:
        space = AffineSpace(self.ctx, (), self.params, describe)
        if name in self.flat:   # the rows it holds: the outermost size from its accesses
            inner = [space.var(size).project_domain_on_params() for size in self.flat[name]]
            return (self._inferred_extent(name, vt), *inner), (False, *[True] * len(inner))
        extents, known = [], []
        for k, dim in enumerate(vt.dims):
            if dim is not None and k == 0 and not _affine_size(space, dim, name):
                dim = None   # `double A[n * m]`: over-approximated (as pet), by the elements accessed
            if dim is None:
                if k > 0:
                    raise CompileError.at(vt.coord, f"array '{name}' has an unknown inner dimension")
                extents.append(self._inferred_extent(name, vt))
                known.append(False)
            else:
                if not _affine_size(space, dim, name):
                    raise CompileError.at(dim.coord, f"non-affine size of array '{name}': '{describe(dim)}' (an "
                                          "inner dimension must be an affine expression of the parameters: "
                                          "pass its value as a parameter of its own)")
                # a function of the parameters only (not of a 0-dimensional set), like
                # every parameter expression isl builds: AST generation under a --ctx needs it
                extents.append(space.expr(dim, f"size of array '{name}'").project_domain_on_params())
                known.append(True)
        return tuple(extents), tuple(known)

    def _touched(self, name: str) -> isl.Set | None:
        """The elements of `name` that the statements access (None: no access)."""
        touched = None
        for stmt in self.statements:
            for acc in stmt.accesses:
                if acc.array == name:
                    rng = acc.index.range()
                    touched = rng if touched is None else touched.union(rng)
        return touched

    def _before_first(self, name: str) -> bool:
        """Whether some access of `name` may reach before its first element (a negative
        outermost index)."""
        touched = self._touched(name)
        if touched is None:
            return False
        ls = isl.LocalSpace.from_space(touched.get_space())
        outer = isl.PwAff.var_on_domain(ls, isl.dim_type.set, 0)
        return not touched.intersect(outer.lt_set(isl.PwAff.zero_on_domain(ls))).is_empty()

    def _inferred_extent(self, name: str, vt: VarType) -> isl.PwAff:
        """Outermost size of `A[]`/`*A`: one past the largest accessed index (0 when
        no statement instance accesses it, e.g. under an empty loop)."""
        touched = self._touched(name)
        if touched is None or touched.is_empty():
            return constant_on(isl.Space.params_alloc(self.ctx, 0), 0)
        rank = touched.dim(isl.dim_type.set)
        outer = touched.project_out(isl.dim_type.set, 1, rank - 1).coalesce() if rank > 1 else touched
        upper = refinement(self.ctx, LIMITS.array_size, lambda: outer.dim_max(0).coalesce())
        if upper is None:
            raise CompileError.at(vt.coord, f"cannot determine the size of array '{name}': the largest index "
                                  "it is accessed at is too complex a function of the parameters; "
                                  "declare its size")
        if upper.involves_nan():
            raise CompileError.at(vt.coord, f"cannot determine the size of array '{name}': "
                                  "its accesses have no upper bound")
        return upper.add(constant_on(upper.get_domain_space(), 1)).coalesce()



def _kill_target(node: c_ast.Node) -> RawAccess | None:
    """What one argument of `__pencil_kill` names: a variable, or one element of an array."""
    subscripts: list[c_ast.Node] = []
    while isinstance(node, c_ast.ArrayRef):
        subscripts.insert(0, node.subscript)
        node = node.name
    if not isinstance(node, c_ast.ID):
        return None
    return RawAccess(node.name, tuple(subscripts), False, True, node)


def _undeclared_callees(node: c_ast.Node, variables) -> list[str]:
    """The callees of `node` that are not variables, the math functions and the
    subscript helpers (handled by name): those nothing declares among them."""
    known = PURE_FUNCTIONS | AFFINE_CALLS | {USE, DEF}
    return [call.name.name for call in nodes_of(node, c_ast.FuncCall)
            if isinstance(call.name, c_ast.ID) and call.name.name not in known and call.name.name not in variables]


def _affine_size(space: AffineSpace, dim: c_ast.Node, name: str) -> bool:
    try:
        space.expr(dim, f"size of array '{name}'")
    except NotAffine:
        return False
    return True


def _only_params(params_set: isl.Set, names: tuple[str, ...]) -> isl.Set:
    """`params_set` without the parameters the SCoP does not have (projected out)."""
    for k in reversed(range(params_set.dim(isl.dim_type.param))):
        if params_set.get_dim_name(isl.dim_type.param, k) not in names:
            params_set = params_set.project_out(isl.dim_type.param, k, 1)
    return params_set


def _loop_init(node: c_ast.For) -> tuple[str, c_ast.Node | None]:
    """The loop's iterator and start; no start (None) for `for (; i < n; i++)` and
    `for (i; ...)`, whose iterator is the variable the step updates: the loop starts
    from the value it has there."""
    init = node.init
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 and init.decls[0].init is not None:
        return init.decls[0].name, init.decls[0].init
    if isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
        return init.lvalue.name, init.rvalue
    stepped = _stepped(node.next)
    if stepped is not None and (init is None or isinstance(init, c_ast.ID) and init.name == stepped):
        return stepped, None
    raise CompileError.at(node.coord, "loop must start with 'iterator = expression'")


def _stepped(nxt: c_ast.Node | None) -> str | None:
    """The variable a loop's step updates (`i++`, `i += 2`, `i = i - 1`), if any."""
    if isinstance(nxt, c_ast.UnaryOp) and nxt.op in ("p++", "++", "p--", "--") and isinstance(nxt.expr, c_ast.ID):
        return nxt.expr.name
    if isinstance(nxt, c_ast.Assignment) and isinstance(nxt.lvalue, c_ast.ID):
        return nxt.lvalue.name
    return None


def _loop_step(node: c_ast.For, it: str) -> int:
    nxt = node.next
    if isinstance(nxt, c_ast.UnaryOp) and isinstance(nxt.expr, c_ast.ID) and nxt.expr.name == it:
        if nxt.op in ("p++", "++"):
            return 1
        if nxt.op in ("p--", "--"):
            return -1
    if isinstance(nxt, c_ast.Assignment) and isinstance(nxt.lvalue, c_ast.ID) and nxt.lvalue.name == it:
        if nxt.op in ("+=", "-=") and isinstance(nxt.rvalue, c_ast.Constant):
            value = int(nxt.rvalue.value.rstrip("uUlL"), 0)
            if value != 0:
                return value if nxt.op == "+=" else -value
        if nxt.op == "=" and isinstance(nxt.rvalue, c_ast.BinaryOp) and nxt.rvalue.op in ("+", "-"):
            left, right = nxt.rvalue.left, nxt.rvalue.right
            if isinstance(left, c_ast.ID) and left.name == it and isinstance(right, c_ast.Constant):
                value = int(right.value.rstrip("uUlL"), 0)
                if value != 0:
                    return value if nxt.rvalue.op == "+" else -value
    updates_itself = isinstance(nxt, c_ast.Assignment) and isinstance(nxt.lvalue, c_ast.ID) \
        and nxt.lvalue.name == it and not (isinstance(nxt.rvalue, c_ast.Constant) and nxt.op in ("+=", "-="))
    # a step the model cannot know (`i += k`, `i *= 2`) makes the loop dynamic control;
    # no step, a zero step or a step of another variable is no loop over `it`
    error = NotAffine if updates_itself else CompileError
    if nxt is None:
        raise error.at(node.coord, f"loop over '{it}' has no step: write 'for (...; ...; {it}++)', "
                       "or a while loop")
    raise error.at(getattr(nxt, "coord", None) or node.coord,
                   f"loop over '{it}' must step by a non-zero constant ('{describe(nxt) if nxt else ''}')")


def _until_first_failure(steps: isl.Set, holds: isl.Set, depth: int, step: int) -> isl.Set:
    """The values of a loop's iterator: those of `steps` (the values from the start, by
    the step) where the condition `holds`, up to the first where it does not. C's loop
    stops there: `i < n && i != 5` runs to 4, and `i != n` is bounded by n. For the
    usual condition, which fails for good once it fails, this is `holds` itself."""
    fails = steps.subtract(holds)
    if fails.is_empty():
        return holds
    as_map = isl.Map.from_range(fails).move_dims(isl.dim_type.in_, 0, isl.dim_type.out, 0, depth)
    first = (as_map.lexmin_pw_multi_aff() if step > 0 else as_map.lexmax_pw_multi_aff()).get_pw_aff(0)
    var = isl.PwAff.var_on_domain(isl.LocalSpace.from_space(holds.get_space()), isl.dim_type.set, depth)
    first_here = first.pullback_multi_aff(isl.MultiAff.project_out_map(holds.get_space(), isl.dim_type.set, depth, 1))
    before = var.lt_set(first_here) if step > 0 else var.gt_set(first_here)
    result = holds.intersect(before).union(holds.subtract(first_here.domain()))
    return holds if result.is_equal(holds) else result.coalesce()


def _bounded(domain: isl.Set, depth: int) -> bool:
    """Whether the iterator at `depth` is bounded for fixed outer values."""
    if domain.is_empty():
        return True
    try:
        return not (domain.dim_max(depth).involves_nan() or domain.dim_min(depth).involves_nan())
    except isl.Error:  # "unbounded optimum"
        return False


def _last_instance(domain: isl.Set, signs: tuple[int, ...]) -> isl.Set:
    """The point of `domain` that runs last: lexicographically largest, each
    dimension counted in its loop's direction."""
    flip = isl.MultiAff.identity(domain.get_space().map_from_set())
    for k, sign in enumerate(signs):
        if sign < 0:
            flip = flip.set_aff(k, flip.get_aff(k).neg())
    flip = isl.Map.from_multi_aff(flip)
    return domain.apply(flip).lexmax().apply(flip)


def _loop_schedule(domain: isl.UnionSet, depth: int, sign: int) -> isl.MultiUnionPwAff:
    """The partial schedule of a loop: its iterator (negated when it counts down)."""
    upa = None
    for s in sets_of(domain):
        ls = isl.LocalSpace.from_space(s.get_space())
        pa = isl.PwAff.var_on_domain(ls, isl.dim_type.set, depth).intersect_domain(s)
        if sign < 0:
            pa = pa.neg()
        part = pa.to_union_pw_aff()
        upa = part if upa is None else upa.union_add(part)
    if upa is None:  # the loop never runs: an empty schedule over an empty domain
        upa = isl.UnionPwAff.empty(domain.get_space())
    return isl.MultiUnionPwAff.from_union_pw_aff(upa)


def _with_values(node: c_ast.Node, values: dict[str, c_ast.Node]) -> c_ast.Node:
    """`node` with each identifier of `values` replaced by its expression (in place)."""
    if isinstance(node, c_ast.ID) and node.name in values:
        return copy.deepcopy(values[node.name])
    for attr in node.__slots__:
        if attr in ("coord", "__weakref__") or not hasattr(node, attr):
            continue
        value = getattr(node, attr)
        if isinstance(value, c_ast.Node) and not (isinstance(node, c_ast.FuncCall) and attr == "name"):
            setattr(node, attr, _with_values(value, values))
        elif isinstance(value, list):
            setattr(node, attr, [_with_values(v, values) if isinstance(v, c_ast.Node) else v for v in value])
    return node


def _scalar_update(item: c_ast.Node) -> tuple[str, str, c_ast.Node | None] | None:
    """(name, operator, value) of a statement that writes one scalar: `k = e`, `k += e`,
    `k++` (`+=` with no value: one)."""
    if isinstance(item, c_ast.Assignment) and isinstance(item.lvalue, c_ast.ID):
        return item.lvalue.name, item.op, item.rvalue
    if isinstance(item, c_ast.UnaryOp) and item.op in ("p++", "p--", "++", "--") \
            and isinstance(item.expr, c_ast.ID):
        return item.expr.name, "+=" if "+" in item.op else "-=", None
    return None


def _scan(items) -> NameScan:
    """The iterators, written scalars and uses (in source order) of a SCoP's statements."""
    scan = NameScan(_loop_iterator)
    for item in items:
        scan.visit(item)
    return scan


def _loop_iterator(node: c_ast.For) -> str | None:
    """The iterator of a loop that sets it (`for (; i < n; i++)` leaves `i` what it is:
    a variable of the SCoP, the loop's iterator only where its start is known)."""
    try:
        it, init = _loop_init(node)
    except CompileError:
        return None
    return it if init is not None else None


def _union(sets) -> isl.UnionSet:
    result = None
    for s in sets:
        part = isl.UnionSet.from_set(s)
        result = part if result is None else result.union(part)
    return result


@dataclass(frozen=True)
class _Own:
    """The C variables of a construct of dynamic control: its loops' iterators
    (those declared in a loop header apart) and the locals declared in it."""

    iterators: frozenset[str]
    declared_in_loops: frozenset[str]
    locals: frozenset[str]


def _own_variables(node: c_ast.Node) -> _Own:
    loops = nodes_of(node, c_ast.For)
    iterators = {it for it in map(_loop_iterator, loops) if it is not None}
    in_headers = {d.name for loop in loops if isinstance(loop.init, c_ast.DeclList) for d in loop.init.decls}
    return _Own(frozenset(iterators), frozenset(in_headers),
                frozenset(m.name for m in nodes_of(node, Declaration)))


def _leaves_early(loop: c_ast.For) -> bool:
    """Whether a `break` or `continue` of this loop (not of a loop inside) is in its body."""
    def search(node: c_ast.Node) -> bool:
        if isinstance(node, (c_ast.Break, c_ast.Continue)):
            return True
        if isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Switch)):
            return False
        return any(search(child) for _, child in node.children())
    return search(loop.stmt)


def _declared(decl: c_ast.Decl, name: str) -> c_ast.Decl:
    """A declaration of `name` with the type of `decl`, no initialiser, no storage class."""
    result = copy.deepcopy(decl)
    result.name, result.init, result.storage, result.funcspec = name, None, [], []
    inner = result.type
    while not isinstance(inner, c_ast.TypeDecl):
        inner = inner.type
    inner.declname = name
    return result


def _surroundings(region: Region) -> Surroundings | None:
    """The SCoP's function's line and parameters, and what it sees at file scope."""
    node = region.function_node
    if node.decl.coord is None:
        return None
    args = node.decl.type.args
    params: list[c_ast.Node] = list(args.params) if args is not None else []
    if len(params) == 1 and isinstance(params[0], c_ast.Typename):     # `f(void)`
        params = []
    names: tuple[str, ...] | None = tuple(p.name for p in params if isinstance(p, c_ast.Decl) and p.name)
    if node.param_decls or len(names) != len(params) \
            or any(region.symbols.get(p.name) is not p for p in params):   # K&R, `...`, unnamed or shadowed
        names = None
    return Surroundings(node.decl.coord.line, names, region.file_scope)
