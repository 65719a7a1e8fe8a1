"""Calls to functions defined in the file, inlined into the SCoP as pet does.

A call `copy(b, a, i);` or `A[i] = add_one(add_one(B[i]));` to a function whose
body is in the file is replaced, before anything else looks at the SCoP, by the
callee's body with its formal parameters replaced by the actual arguments:

- an array or pointer parameter by the array the argument designates: `a[j]` in
  the callee becomes `A[i][j]` for the argument `A[i]` (a row), `A[i][k + j]` for
  `&A[i][k]` (a pointer to an element, whose first subscript is an offset), `s`
  for `*p` with the argument `&s`;
- a scalar parameter by its value converted to the parameter's type
  (`(int) B[i]`), or, where the callee assigns it, by a local of the SCoP
  declared and initialised at the call (`int x_1 = B[i];`);
- the callee's own locals and loop iterators by fresh names, so nothing at the
  call site captures or is captured by them;
- the value of a call in an expression by the callee's final `return E;`,
  converted to its return type, the callee's other statements going before the
  statement that holds the call; a callee that returns earlier has its returns
  made structured control flow first, its value a choice `c ? E1 : E2` or a
  result variable (returns.py).

The statements that result are ordinary SCoP statements: their accesses are the
callee's through its arguments, loops in the callee are loops of the SCoP, and
every later stage (scheduling, memory placement, the three printers) handles
them as any other, so the generated code is exact with no function to declare on
the device. A callee that is not a static-control piece of code is rejected where
its body breaks the rules, the message naming the callee and the call
(`Inlined.context`).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field

from pycparser import c_ast, c_generator

from ..diagnostics import CompileError
from ..names import fresh_name
from .accesses import PURE_FUNCTIONS
from .affine import AFFINE_CALLS
from .c_types import TypeError_, VarType, resolve
from .c_walk import all_names, nodes_of
from .external import ExternalFunction, external_functions
from .regions import Region
from .returns import structure_returns
from .summaries import DEF, USE, Summary, SummaryCall, marked

# Never inlined, even when the file defines them: the pure math functions (and the
# integer min/max/floord/ceild of subscripts) are handled by name, as before.
_KEPT_BY_NAME = PURE_FUNCTIONS | AFFINE_CALLS


@dataclass(frozen=True)
class FileFunctions:
    """What the inliner needs to know of the file: its function definitions, the
    declarations at file scope, and every name it uses (fresh names avoid them)."""

    definitions: dict[str, c_ast.FuncDef]
    globals: dict[str, c_ast.Decl]
    names: frozenset[str]
    summaries: dict[str, Summary] = field(default_factory=dict)   # PENCIL's (summaries.py)
    external: dict[str, ExternalFunction] = field(default_factory=dict)   # declared only (external.py)

    @classmethod
    def of(cls, ast: c_ast.FileAST, summaries: dict[str, Summary] | None = None, path: str = "") -> FileFunctions:
        definitions = {ext.decl.name: ext for ext in ast.ext if isinstance(ext, c_ast.FuncDef)}
        globals_ = {ext.name: ext for ext in ast.ext
                    if isinstance(ext, c_ast.Decl) and ext.name and not isinstance(ext.type, c_ast.FuncDecl)}
        summaries = dict(summaries or {})
        external = external_functions(ast, path, frozenset(summaries) | _KEPT_BY_NAME | {USE, DEF})
        return cls(definitions, globals_, frozenset(all_names(ast)), summaries, external)


@dataclass(frozen=True)
class Inlined:
    """One inlined call: where the callee's body lies, to name it in errors there."""

    callee: str
    file: str | None
    first_line: int
    last_line: int
    call_line: int
    renamed: tuple[tuple[str, str], ...] = ()   # (fresh name, name in the callee)

    def covers(self, err: CompileError) -> bool:
        return err.file == self.file and err.line is not None and self.first_line <= err.line <= self.last_line

    def context(self) -> str:
        return f"in function '{self.callee}', inlined from the call at line {self.call_line}"


@dataclass(frozen=True)
class _Pointer:
    """What a pointer or array argument designates: `base[subs...]`, either a row
    (`A[i]`: the callee's subscripts follow) or an element (`&A[i][k]`: the
    callee's first subscript is added to the last one)."""

    base: str
    subs: tuple[c_ast.Node, ...]
    element: bool


def inline_calls(items: tuple[c_ast.Node, ...], functions: FileFunctions, region: Region,
                 typedefs: dict[str, c_ast.Node], inlined: list[Inlined],
                 declared: dict[str, c_ast.Decl] | None = None) -> tuple[c_ast.Node, ...]:
    """The SCoP's statements with every call to a function of the file inlined (the
    region itself is left alone); each call inlined is added to `inlined`, as soon as
    its body is taken, so that an error in it can name it. `declared`: variables the
    file does not declare that arguments may name (struct members' field arrays)."""
    if not any(isinstance(call.name, c_ast.ID) and (call.name.name in functions.definitions
                                                    or call.name.name in functions.summaries)
               for item in items for call in nodes_of(item, c_ast.FuncCall)):
        return items
    inliner = _Inliner(functions, {**region.symbols, **(declared or {})}, typedefs,
                       set(functions.names) | all_names(region.function_node), inlined)
    items = copy.deepcopy(items)
    inliner.scop_locals = {d.name for item in items for d in nodes_of(item, c_ast.Decl) if d.name}
    return tuple(inliner.block(list(items), ()))


class _Inliner:
    def __init__(self, functions: FileFunctions, symbols: dict[str, c_ast.Decl],
                 typedefs: dict[str, c_ast.Node], taken: set[str], inlined: list[Inlined]) -> None:
        self.functions, self.symbols, self.typedefs, self.taken = functions, symbols, typedefs, taken
        self.inlined = inlined
        self.local_types: dict[str, str] = {}   # element types of the fresh locals
        self.scop_locals: set[str] = set()

    # -- statements -----------------------------------------------------------
    def block(self, items: list[c_ast.Node], stack: tuple[str, ...]) -> list[c_ast.Node]:
        out: list[c_ast.Node] = []
        for item in items:
            out.extend(self.statement(item, stack))
        return out

    def single(self, node: c_ast.Node, stack: tuple[str, ...]) -> c_ast.Node:
        parts = self.statement(node, stack)
        return parts[0] if len(parts) == 1 else c_ast.Compound(parts, node.coord)

    def statement(self, node: c_ast.Node, stack: tuple[str, ...]) -> list[c_ast.Node]:
        if isinstance(node, c_ast.Compound):
            return [c_ast.Compound(self.block(list(node.block_items or []), stack), node.coord)]
        if isinstance(node, c_ast.For):
            if isinstance(node.init, c_ast.DeclList):
                for decl in node.init.decls:
                    decl.init = self.expression(decl.init, None, stack)
            else:
                node.init = self.expression(node.init, None, stack)
            node.cond = self.expression(node.cond, None, stack)
            node.next = self.expression(node.next, None, stack)
            node.stmt = self.single(node.stmt, stack)
            return [node]
        if isinstance(node, c_ast.If):
            node.cond = self.expression(node.cond, None, stack)
            node.iftrue = self.single(node.iftrue, stack)
            if node.iffalse is not None:
                node.iffalse = self.single(node.iffalse, stack)
            return [node]
        if isinstance(node, (c_ast.While, c_ast.DoWhile)):   # dynamic control: the builder keeps it whole
            node.cond = self.expression(node.cond, None, stack)
            node.stmt = self.single(node.stmt, stack)
            return [node]
        if isinstance(node, c_ast.Label):
            node.stmt = self.single(node.stmt, stack)
            return [node]
        before: list[c_ast.Node] = []
        if isinstance(node, c_ast.Decl):
            node.init = self.expression(node.init, before, stack)
            return before + [node]
        if isinstance(node, c_ast.DeclList):
            for decl in node.decls:
                decl.init = self.expression(decl.init, before, stack)
            return before + [node]
        if isinstance(node, c_ast.FuncCall) and self._summarised(node):
            return before + [self.summarised(node, before, stack)]
        if isinstance(node, c_ast.FuncCall) and self._inlinable(node):
            self.call(node, before, stack)   # the value, if any, is dropped
            return before
        if isinstance(node, (c_ast.Assignment, c_ast.UnaryOp, c_ast.BinaryOp, c_ast.ExprList,
                             c_ast.TernaryOp, c_ast.Cast, c_ast.FuncCall)):
            node = self.expression(node, before, stack)
            return before + [node]
        return [node]   # anything else is for the builder to accept or reject

    # -- expressions ----------------------------------------------------------
    def expression(self, node: c_ast.Node | None, before: list[c_ast.Node] | None,
                   stack: tuple[str, ...]) -> c_ast.Node | None:
        """`node` with each inlinable call replaced by its value, innermost first;
        the callees' statements are appended to `before` (None: there is no place
        for them, as in a loop bound)."""
        if node is None:
            return None
        for slot in node.__slots__:
            if slot in ("coord", "__weakref__") or (isinstance(node, c_ast.FuncCall) and slot == "name"):
                continue
            value = getattr(node, slot, None)
            if isinstance(value, c_ast.Node):
                setattr(node, slot, self.expression(value, before, stack))
            elif isinstance(value, list):
                setattr(node, slot, [self.expression(v, before, stack) if isinstance(v, c_ast.Node) else v
                                     for v in value])
        if isinstance(node, c_ast.FuncCall) and self._summarised(node):
            raise CompileError.at(node.coord, f"call to '{node.name.name}', which has a PENCIL summary, "
                                  "inside an expression (such a call must be a statement of its own)")
        if isinstance(node, c_ast.FuncCall) and self._inlinable(node):
            value = self.call(node, before, stack, arguments_done=True)
            if value is None:
                raise CompileError.at(node.coord, f"the value of a call to '{node.name.name}', "
                                      "which returns none, is used")
            return value
        return node

    def _inlinable(self, node: c_ast.FuncCall) -> bool:
        return (isinstance(node.name, c_ast.ID) and node.name.name in self.functions.definitions
                and node.name.name not in _KEPT_BY_NAME and node.name.name not in self.functions.summaries
                and node.name.name not in (USE, DEF))

    def _summarised(self, node: c_ast.FuncCall) -> bool:
        return isinstance(node.name, c_ast.ID) and node.name.name in self.functions.summaries

    def summarised(self, node: c_ast.FuncCall, before: list[c_ast.Node], stack: tuple[str, ...]) -> SummaryCall:
        """A call statement of a function with a PENCIL summary: the call, kept, with the
        summary's body inlined for its arguments (what the builder takes the accesses from)."""
        name = node.name.name
        summary = self.functions.summaries[name]
        where = node.coord
        sdef = self.functions.definitions.get(summary.summary)
        if sdef is None:
            raise CompileError(f"the summary function '{summary.summary}' of '{name}' is not defined in this "
                               f"file (called at line {where.line if where else 0})",
                               summary.file, summary.line, summary.column)
        if summary.summary in stack or summary.summary == name:
            raise CompileError.at(where, f"the summary of '{name}' calls itself")
        formals = _formals(sdef)
        if formals is None:
            raise CompileError.at(sdef.coord, f"the summary function '{summary.summary}' takes a variable "
                                  "number of arguments")
        if summary.parameters is not None and summary.parameters != len(formals):
            raise CompileError(f"the summary function '{summary.summary}' has {len(formals)} parameters, but "
                               f"'{name}' has {summary.parameters}", summary.file, summary.line, summary.column)
        args = [self.expression(a, before, stack) for a in (node.args.exprs if node.args else [])]
        if len(args) != len(formals):
            raise CompileError.at(where, f"call to '{name}' with {len(args)} arguments, but "
                                  f"'{name}' has {len(formals)} parameters")
        if node.args is not None:
            node.args.exprs = args
        for decl in nodes_of(sdef.body, c_ast.Decl):
            if not any(decl in (loop.init.decls if isinstance(loop.init, c_ast.DeclList) else [])
                       for loop in nodes_of(sdef.body, c_ast.For)):
                raise CompileError.at(decl.coord, f"declaration of '{decl.name}' in the summary function "
                                      f"'{summary.summary}' (a summary may declare loop iterators only)")
        if _assigned_names(sdef.body) & {f.name for f in formals}:
            raise CompileError.at(sdef.coord, f"the summary function '{summary.summary}' assigns one of "
                                  "its parameters")
        pointers = tuple(self._formal_type(f, summary.summary).is_array for f in formals)
        items: list[c_ast.Node] = []
        summary_call = c_ast.FuncCall(c_ast.ID(summary.summary, where), c_ast.ExprList(copy.deepcopy(args), where),
                                      where)
        self.call(summary_call, items, stack + (name,), arguments_done=True, by_value=True)
        return SummaryCall(node, marked(items, summary.summary), summary, pointers, where)

    def call(self, node: c_ast.FuncCall, before: list[c_ast.Node] | None, stack: tuple[str, ...], *,
             arguments_done: bool = False, by_value: bool = False) -> c_ast.Node | None:
        """Inline one call; its value (None for a function returning void)."""
        name = node.name.name
        where = node.coord
        if name in stack:
            raise CompileError.at(where, f"recursive call to '{name}' (a function called in a SCoP is "
                                  "inlined there, so it cannot call itself)")
        fdef = self.functions.definitions[name]
        formals = _formals(fdef)
        if formals is None:
            raise CompileError.at(where, f"call to '{name}', which takes a variable number of arguments")
        args = list(node.args.exprs) if node.args else []
        if len(args) != len(formals):
            raise CompileError.at(where, f"call to '{name}' with {len(args)} arguments, "
                                  f"but '{name}' has {len(formals)} parameters")
        if not arguments_done:
            args = [self.expression(a, before, stack) for a in args]
        body = copy.deepcopy(fdef.body)
        result, chosen = structure_returns(body, fdef, lambda value: self._converted(value, fdef.decl.type.type),
                                           self._inlined_names())
        own = _declared_names(body) | {f.name for f in formals}
        self._check_globals(body, result, own, name, where)
        renames = {n: self._fresh(n) for n in _declared_names(body)}
        for decl in nodes_of(body, c_ast.Decl):
            if decl.name in renames:
                self._remember(renames[decl.name], decl)
        setup: list[c_ast.Node] = []
        scalars: dict[str, c_ast.Node] = {}
        pointers: dict[str, tuple[_Pointer, c_ast.Node]] = {}
        assigned = _assigned_names(body)
        # a value chosen by conditions reads its parameters more than once: where statements
        # may go, an argument that reads memory is read once, into a local
        has_statements = bool(body.block_items) or (chosen and before is not None)
        types = [self._formal_type(formal, name) for formal in formals]
        bindings = {f.name: a for f, a, vt in zip(formals, args, types) if not vt.is_array}
        pointer_bases = set()
        for formal, actual, vt in zip(formals, args, types):
            if vt.is_array:
                pointer = self._pointer(actual, formal.name, vt, name, bindings)
                pointers[formal.name] = (pointer, actual)
                pointer_bases.add(pointer.base)
        for formal, actual, vt in zip(formals, args, types):
            if vt.is_array:
                continue
            if formal.name not in assigned and (by_value or not has_statements
                                                or self._unchanging(actual, pointer_bases)):
                scalars[formal.name] = self._converted(actual, formal.type)
                continue
            if before is None:
                raise CompileError.at(where, f"call to '{name}' in a loop bound or condition: its body "
                                      "has statements (only a function that returns an expression of its "
                                      "parameters can be called there)")
            local = self._fresh(formal.name)
            renames[formal.name] = local
            self._remember(local, formal)
            setup.append(_declaration(local, formal, actual))
        self.inlined.append(Inlined(name, fdef.coord.file if fdef.coord else None,
                                    fdef.coord.line if fdef.coord else 0, _last_line(fdef),
                                    where.line if where else 0, tuple((new, old) for old, new in renames.items())))
        parts = [_Substitution(renames, scalars, pointers, name).node(item) for item in body.block_items or []]
        value = _Substitution(renames, scalars, pointers, name).node(result) if result is not None else None
        parts = self.block(parts, stack + (name,))
        if value is not None:
            value = self.expression(value, parts, stack + (name,))
        if setup or parts:
            if before is None:
                raise CompileError.at(where, f"call to '{name}' in a loop bound or condition: its body "
                                      "has statements (only a function that returns an expression of its "
                                      "parameters can be called there)")
            before.extend(setup + parts)
        if value is None:
            return None
        return self._converted(value, fdef.decl.type.type)

    def _inlined_names(self) -> set[str]:
        """The functions whose calls this inliner replaces by statements."""
        return {name for name in self.functions.definitions
                if self._inlinable(c_ast.FuncCall(c_ast.ID(name), None))}

    def _converted(self, value: c_ast.Node, type_node: c_ast.Node) -> c_ast.Node:
        """`(T) value`: a value passed to or returned from a function takes the declared
        type (no cast where the value has that type already)."""
        if not isinstance(type_node, c_ast.TypeDecl) or (isinstance(type_node.type, c_ast.IdentifierType)
                                                         and type_node.type.names == ["void"]):
            return value
        try:
            resolved = resolve(type_node, self.typedefs)
        except TypeError_:
            resolved = None
        if resolved is not None and (resolved.struct is not None or self._type_of(value) == resolved.base):
            return value   # a struct is passed as it is (C has no cast to a struct type)
        to = c_ast.TypeDecl(None, [], None, copy.deepcopy(type_node.type))
        return c_ast.Cast(c_ast.Typename(None, [], None, to), value, value.coord)

    def _remember(self, name: str, decl: c_ast.Decl) -> None:
        try:
            vt = resolve(decl.type, self.typedefs)
        except TypeError_:
            return
        if not vt.is_array:
            self.local_types[name] = vt.base

    def _type_of(self, node: c_ast.Node) -> str | None:
        """The C type of a simple expression (int, float, double, or a variable's), or None."""
        if isinstance(node, c_ast.Constant):
            value = node.value.lower()
            if node.type == "int" and not value.endswith(("u", "l")):
                return "int"
            if node.type in ("double", "float"):
                return "float" if value.endswith("f") else None if value.endswith("l") else "double"
            return None
        if isinstance(node, c_ast.Cast):
            try:
                vt = resolve(node.to_type.type, self.typedefs)
            except TypeError_:
                return None
            return None if vt.is_array else vt.base
        if isinstance(node, (c_ast.ID, c_ast.ArrayRef)):
            depth, base = 0, node
            while isinstance(base, c_ast.ArrayRef):
                depth, base = depth + 1, base.name
            if not isinstance(base, c_ast.ID):
                return None
            if base.name in self.local_types:
                return self.local_types[base.name] if depth == 0 else None
            decl = self.symbols.get(base.name)
            if decl is None or base.name in self.scop_locals:
                return None
            try:
                vt = resolve(decl.type, self.typedefs)
            except TypeError_:
                return None
            return vt.base if len(vt.dims) == depth else None
        if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
            return self._type_of(node.expr)
        if isinstance(node, c_ast.TernaryOp):
            kind = self._type_of(node.iftrue)
            return kind if kind is not None and kind == self._type_of(node.iffalse) else None
        if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*", "/"):
            a, b = self._type_of(node.left), self._type_of(node.right)
            for kind in ("double", "float", "int"):
                if kind in (a, b) and {a, b} <= {"double", "float", "int"}:
                    return kind
        return None

    def _formal_type(self, formal: c_ast.Decl, callee: str) -> VarType:
        try:
            return resolve(formal.type, self.typedefs)
        except TypeError_ as exc:
            raise CompileError.at(formal.coord, f"parameter '{formal.name}' of '{callee}' has an "
                                  f"unsupported type ({exc})") from None

    def _unchanging(self, actual: c_ast.Node, pointer_bases: set[str]) -> bool:
        """Whether the callee's body cannot change the value of `actual` (no memory read,
        no variable the call passes by address, no global): it may then be used in place
        of the parameter, which keeps a bound or subscript of the callee affine."""
        if nodes_of(actual, c_ast.ArrayRef, c_ast.FuncCall, c_ast.StructRef):
            return False
        return not any(i.name in pointer_bases or i.name in self.functions.globals
                       for i in nodes_of(actual, c_ast.ID))

    def _pointer(self, actual: c_ast.Node, formal: str, formal_type: VarType, callee: str,
                 bindings: dict[str, c_ast.Node]) -> _Pointer:
        """What an array or pointer argument designates, checked against the parameter's shape."""
        written = actual
        actual = self._as_subscripts(actual)
        element = isinstance(actual, c_ast.UnaryOp) and actual.op == "&"
        target = actual.expr if element else actual
        subs: list[c_ast.Node] = []
        while isinstance(target, c_ast.ArrayRef):
            subs.append(target.subscript)
            target = target.name
        subs.reverse()
        if not isinstance(target, c_ast.ID):
            raise CompileError.at(written.coord, f"argument for the array parameter '{formal}' of '{callee}' "
                                  "is neither an array, a row of one, nor the address of a variable or "
                                  "element (write 'A', 'A[i]', '&A[i][j]', 'A + i' or 'A[i] + j')")
        decl = self.symbols.get(target.name)
        base_type = None
        if decl is not None and target.name not in self.scop_locals:
            try:
                base_type = resolve(decl.type, self.typedefs)
            except TypeError_:
                base_type = None
        rank = len(base_type.dims) if base_type is not None else 0
        if element and len(subs) < rank and subs:   # `&A[i]`, `A + i`: rows from row i (the callee's
            inner = base_type.dims[len(subs):]       # first subscript is added to i)
            if len(formal_type.dims) != len(inner) + 1 or not all(
                    _same_extent(a, b, bindings) for a, b in zip(inner, formal_type.dims[1:])):
                raise CompileError.at(written.coord, f"argument '{_text(written)}' does not have the shape of "
                                      f"the parameter '{formal}' of '{callee}' (its inner dimensions must be "
                                      "the same)")
            return _Pointer(target.name, tuple(subs), True)
        if element:
            if len(subs) != rank:
                raise CompileError.at(written.coord, f"argument for '{formal}' of '{callee}' takes the address "
                                      "of something other than one element")
            if len(formal_type.dims) != 1:
                raise CompileError.at(written.coord, f"argument for '{formal}' of '{callee}' points to one "
                                      f"element, but '{formal}' has {len(formal_type.dims)} dimensions")
            return _Pointer(target.name, tuple(subs), True)
        if rank == 0:
            raise CompileError.at(actual.coord, f"argument for the array parameter '{formal}' of '{callee}' "
                                  f"is not an array ('{target.name}')")
        if len(subs) >= rank:
            raise CompileError.at(actual.coord, f"argument for the array parameter '{formal}' of '{callee}' "
                                  "is one element (pass its address, or the array)")
        inner = base_type.dims[len(subs):]
        if len(inner) != len(formal_type.dims) or not all(
                _same_extent(a, b, bindings) for a, b in zip(inner[1:], formal_type.dims[1:])):
            raise CompileError.at(actual.coord, f"argument '{_text(actual)}' does not have the shape of the "
                                  f"parameter '{formal}' of '{callee}' (its inner dimensions must be the same)")
        return _Pointer(target.name, tuple(subs), False)

    def _rows_left(self, node: c_ast.Node) -> int:
        """How many dimensions the pointer or array `node` still has (0: not one)."""
        if isinstance(node, c_ast.ID):
            decl = self.symbols.get(node.name)
            if decl is None or node.name in self.scop_locals:
                return 0
            try:
                return len(resolve(decl.type, self.typedefs).dims)
            except TypeError_:
                return 0
        if isinstance(node, c_ast.ArrayRef):
            return max(self._rows_left(node.name) - 1, 0)
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            return max(self._rows_left(node.expr) - 1, 0)
        if isinstance(node, c_ast.UnaryOp) and node.op == "&" and isinstance(node.expr, c_ast.ArrayRef):
            return self._rows_left(node.expr) + 1
        if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-"):
            return max(self._rows_left(node.left), self._rows_left(node.right) if node.op == "+" else 0)
        return 0

    def _as_subscripts(self, node: c_ast.Node) -> c_ast.Node:
        """A pointer argument written with pointer arithmetic, as subscripts: `A + i` is
        `&A[i]`, `A[i] + j` is `&A[i][j]`, `&A[i][j] + k` is `&A[i][j + k]`, `*A` is
        `A[0]` (C's own meaning of each); any other node is returned as it is."""
        coord = node.coord
        if isinstance(node, c_ast.UnaryOp) and node.op == "*" and self._rows_left(node.expr) > 0:
            inner = self._as_subscripts(node.expr)
            if isinstance(inner, c_ast.UnaryOp) and inner.op == "&":
                return inner.expr
            return c_ast.ArrayRef(inner, c_ast.Constant("int", "0", coord), coord)
        if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-"):
            pointer, offset = node.left, node.right
            if node.op == "+" and self._rows_left(pointer) == 0:
                pointer, offset = offset, pointer
            if self._rows_left(pointer) == 0 or self._rows_left(offset) > 0:
                return node
            if node.op == "-":
                offset = c_ast.UnaryOp("-", offset, coord)
            base = self._as_subscripts(pointer)
            if isinstance(base, c_ast.UnaryOp) and base.op == "&" and isinstance(base.expr, c_ast.ArrayRef):
                last = base.expr
                return c_ast.UnaryOp("&", c_ast.ArrayRef(last.name, c_ast.BinaryOp("+", last.subscript, offset, coord),
                                                         coord), coord)
            return c_ast.UnaryOp("&", c_ast.ArrayRef(base, offset, coord), coord)
        return node

    def _check_globals(self, body: c_ast.Node, result, own: set[str], callee: str, where) -> None:
        """A name the callee uses and does not declare is a global of the file; the call
        site must see the same variable under that name."""
        for node in nodes_of(body, c_ast.ID) + (nodes_of(result, c_ast.ID) if result is not None else []):
            name = node.name
            if name in own or name in self.functions.definitions:
                continue
            glob = self.functions.globals.get(name)
            if glob is None:
                continue   # not a variable: a call to a library function, an enumerator; left to the builder
            if self.symbols.get(name) is not glob or name in self.scop_locals:
                raise CompileError.at(where, f"'{callee}' uses the global '{name}', which a local "
                                      "variable hides at this call")

    def _fresh(self, name: str) -> str:
        return fresh_name(name, self.taken, numbered=True)


class _Substitution:
    """The callee's body in the caller's terms (applied to a deep copy, in place)."""

    def __init__(self, renames: dict[str, str], scalars: dict[str, c_ast.Node],
                 pointers: dict[str, tuple[_Pointer, c_ast.Node]], callee: str) -> None:
        self.renames, self.scalars, self.pointers, self.callee = renames, scalars, pointers, callee

    def node(self, node: c_ast.Node) -> c_ast.Node:
        if isinstance(node, c_ast.ArrayRef):
            subs: list[c_ast.Node] = []
            base: c_ast.Node = node
            while isinstance(base, c_ast.ArrayRef):
                subs.append(base.subscript)
                base = base.name
            if isinstance(base, c_ast.ID) and base.name in self.pointers:
                subs = [self.node(s) for s in reversed(subs)]
                return self._element(base, subs, node.coord)
        if isinstance(node, c_ast.UnaryOp) and node.op == "*" and isinstance(node.expr, c_ast.ID) \
                and node.expr.name in self.pointers:
            return self._element(node.expr, [c_ast.Constant("int", "0", node.coord)], node.coord)
        if isinstance(node, c_ast.ID):
            if node.name in self.pointers:
                return copy.deepcopy(self.pointers[node.name][1])   # passed on whole, to another call
            if node.name in self.scalars:
                return copy.deepcopy(self.scalars[node.name])
            if node.name in self.renames:
                return c_ast.ID(self.renames[node.name], node.coord)
            return node
        if isinstance(node, c_ast.Decl) and node.name in self.renames:
            node.name = self.renames[node.name]
            inner = node.type
            while not isinstance(inner, c_ast.TypeDecl) and hasattr(inner, "type"):
                inner = inner.type
            if isinstance(inner, c_ast.TypeDecl):
                inner.declname = node.name
        for slot in node.__slots__:
            if slot in ("coord", "__weakref__") or _is_name(node, slot):
                continue
            value = getattr(node, slot, None)
            if isinstance(value, c_ast.Node):
                setattr(node, slot, self.node(value))
            elif isinstance(value, list):
                setattr(node, slot, [self.node(v) if isinstance(v, c_ast.Node) else v for v in value])
        return node

    def _element(self, base: c_ast.ID, subs: list[c_ast.Node], coord) -> c_ast.Node:
        pointer = self.pointers[base.name][0]
        leading = [copy.deepcopy(s) for s in pointer.subs]
        if pointer.element and subs:
            offset = subs.pop(0)
            if leading:
                last = leading.pop()
                leading.append(last if _is_zero(offset) else c_ast.BinaryOp("+", last, offset, coord))
            elif not _is_zero(offset):
                raise CompileError.at(coord, f"'{base.name}' in '{self.callee}' points to the scalar "
                                      f"'{pointer.base}': only '*{base.name}' or '{base.name}[0]' reaches it")
        result: c_ast.Node = c_ast.ID(pointer.base, coord)
        for sub in leading + subs:
            result = c_ast.ArrayRef(result, sub, coord)
        return result


def _is_name(node: c_ast.Node, slot: str) -> bool:
    return (isinstance(node, c_ast.FuncCall) and slot == "name") or (
        isinstance(node, c_ast.StructRef) and slot == "field")


def _is_zero(node: c_ast.Node) -> bool:
    return isinstance(node, c_ast.Constant) and node.value.rstrip("uUlL") in ("0", "00")


def _formals(fdef: c_ast.FuncDef) -> list[c_ast.Decl] | None:
    """The parameters of a definition (None: it takes `...`)."""
    args = fdef.decl.type.args
    if args is None:
        return []
    params = list(args.params)
    if any(isinstance(p, c_ast.EllipsisParam) for p in params):
        return None
    if len(params) == 1 and isinstance(params[0], c_ast.Typename):   # f(void)
        return []
    return [p for p in params if isinstance(p, c_ast.Decl)]


def _declared_names(body: c_ast.Node) -> set[str]:
    return {d.name for d in nodes_of(body, c_ast.Decl) if d.name}


def _assigned_names(body: c_ast.Node) -> set[str]:
    """The names the body assigns, increments or takes the address of."""
    names = set()
    for node in nodes_of(body, c_ast.Assignment, c_ast.UnaryOp):
        target = node.lvalue if isinstance(node, c_ast.Assignment) else node.expr
        if isinstance(node, c_ast.UnaryOp) and node.op not in ("p++", "p--", "++", "--", "&"):
            continue
        if isinstance(target, c_ast.ID):
            names.add(target.name)
    return names


def _declaration(local: str, formal: c_ast.Decl, actual: c_ast.Node) -> c_ast.Decl:
    """`T local = actual;` with the parameter's type."""
    declared = copy.deepcopy(formal.type)
    inner = declared
    while not isinstance(inner, c_ast.TypeDecl):
        inner = inner.type
    inner.declname = local
    inner.quals = [q for q in inner.quals if q != "const"]
    return c_ast.Decl(local, [], [], [], [], declared, actual, None, formal.coord)



def _same_extent(actual: c_ast.Node | None, formal: c_ast.Node | None, bindings: dict[str, c_ast.Node]) -> bool:
    """Whether a dimension of the argument's array and one of the parameter (in terms of
    the other arguments) are the same size."""
    if actual is None or formal is None:
        return False
    formal = _Substitution({}, bindings, {}, "").node(copy.deepcopy(formal))
    a, b = _constant(actual), _constant(formal)
    if a is not None and b is not None:
        return a == b
    return _text(actual) == _text(formal)


def _constant(node: c_ast.Node) -> int | None:
    """The value of an integer constant expression, or None."""
    if isinstance(node, c_ast.Constant):
        try:
            return int(node.value.rstrip("uUlL"), 0)
        except ValueError:
            return None
    if isinstance(node, c_ast.Cast):
        return _constant(node.expr)
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
        v = _constant(node.expr)
        return None if v is None else (-v if node.op == "-" else v)
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*"):
        a, b = _constant(node.left), _constant(node.right)
        if a is None or b is None:
            return None
        return a + b if node.op == "+" else a - b if node.op == "-" else a * b
    return None


def _text(node: c_ast.Node) -> str:
    return c_generator.CGenerator().visit(node)


def _last_line(fdef: c_ast.FuncDef) -> int:
    lines = [n.coord.line for n in nodes_of(fdef.body, c_ast.Node) if getattr(n, "coord", None)]
    return max(lines, default=fdef.coord.line if fdef.coord else 0)
