"""Structs and enums in a SCoP, as pet models them.

- Each member of a struct variable that the SCoP reads or writes is an array of its
  own in the model (a *field array*): its dimensions are the variable's, then the
  member's, so `pts[i].x` and `pts[i].y` never depend on each other, and
  `a[i][j].c[k][l]` is the element [i, j, k, l] of field array `a_c`. The field
  array records where it lives (`Member`): later stages keep the struct variable
  itself in memory and print `pts[i].x`.
- A struct assignment (`b[i] = a[i];`) copies every member: it becomes one
  assignment per scalar member, in loops over the dimensions of array members.
- A struct declared inside the SCoP (`struct pt p;`) becomes one local per member
  (`p_x`, `p_y`), each an ordinary scalar local; members that are arrays are not
  supported there.
- Enum constants (`RED`) are integer constants (their values computed as C does,
  constant_expressions.py), and enum types are `int`.
- Unions stay unsupported (c_types.py rejects their type where it is used).

`expand` runs before normalize.py (struct assignments, struct locals, enum
constants); `FieldArrays.rewrite` runs after it, on the normal form, replacing each
member access by a reference to its field array.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field

from pycparser import c_ast, c_generator

from ..diagnostics import CompileError
from ..names import fresh_name
from .c_types import TypeError_, VarType, resolve
from .c_walk import nodes_of
from .constant_expressions import NotConstant, evaluate
from .model import Array, Member, StructType, StructVariable

_GEN = c_generator.CGenerator()
# what a whole struct can be used as instead
_WHOLE = ("(use its members, assign it to a struct of the same type, or pass it to a function "
          "defined in the file)")


# -- struct types -------------------------------------------------------------
class StructTable:
    """The struct definitions and enum constants of a file."""

    def __init__(self, ast: c_ast.FileAST, typedefs: dict[str, c_ast.Node]) -> None:
        self.typedefs = typedefs
        self.definitions: dict[str, c_ast.Struct] = {}
        self.enumerators: dict[str, int] = {}
        self.unevaluable: dict[str, tuple[object, str]] = {}   # enum constant -> (where, why)
        found = nodes_of(ast, c_ast.Struct, c_ast.Enum, c_ast.ArrayDecl)   # one walk: the file is large
        for node in found:
            if isinstance(node, c_ast.Struct) and node.name and node.decls is not None:
                self.definitions.setdefault(node.name, node)
            elif isinstance(node, c_ast.Enum) and node.values is not None:
                self._enumerate(node)
        if self.enumerators:   # `double A[N][COUNT]`: sizes are affine
            for array in found:
                if isinstance(array, c_ast.ArrayDecl) and array.dim is not None:
                    array.dim = _with_enumerators(array.dim, self.enumerators)
        self._typedef_of: dict[int, str] = {}   # anonymous struct -> the typedef that names it
        self._anonymous: dict[int, str] = {}    # anonymous struct of no typedef -> its device name
        for name, node in typedefs.items():
            if isinstance(node, c_ast.TypeDecl) and isinstance(node.type, c_ast.Struct) and not node.type.name:
                self._typedef_of.setdefault(id(node.type), name)

    def _enumerate(self, node: c_ast.Enum) -> None:
        """The values of an enum's constants. One whose value cannot be computed (and
        those after it that count from it) is an error only where a SCoP uses it:
        headers are full of enums that no SCoP uses."""
        value: int | None = -1
        reason = ""
        for item in node.values.enumerators:
            if item.value is not None:
                try:
                    value = evaluate(item.value, self.enumerators, self.typedefs)
                except NotConstant as exc:
                    value, reason = None, str(exc)
            elif value is not None:
                value += 1
            if value is None:
                self.enumerators.pop(item.name, None)
                self.unevaluable[item.name] = (item.coord, reason)
            else:
                self.unevaluable.pop(item.name, None)
                self.enumerators[item.name] = value

    def unevaluable_use(self, name: str, coord) -> CompileError:
        """The error for a use, in a SCoP, of an enum constant whose value is unknown."""
        where, reason = self.unevaluable[name]
        defined = f"; defined at {where.file}:{where.line}" if where is not None else ""
        return CompileError.at(coord, f"enum constant '{name}' whose value ppcg-py cannot compute "
                                      f"({reason}{defined})")

    def definition(self, node: c_ast.Struct, coord) -> c_ast.Struct:
        if node.decls is not None:
            return node
        found = self.definitions.get(node.name or "")
        if found is None:
            raise CompileError.at(coord, f"incomplete struct type 'struct {node.name}'")
        return found

    def members(self, node: c_ast.Struct, coord) -> list[tuple[str, VarType]]:
        result = []
        for decl in self.definition(node, coord).decls or []:
            if not isinstance(decl, c_ast.Decl) or not decl.name:
                raise CompileError.at(getattr(decl, "coord", coord), "anonymous struct or union member: "
                                      "give it a name ('struct { ... } name;') and write 's.name.x' for 's.x'")
            if decl.bitsize is not None:
                raise CompileError.at(decl.coord, f"bit-field member '{decl.name}'")
            try:
                vt = resolve(decl.type, self.typedefs)
            except TypeError_ as exc:
                raise CompileError.at(decl.coord, f"member '{decl.name}' has an unsupported type ({exc})") \
                    from None
            if any(d is None for d in vt.dims):
                raise CompileError.at(decl.coord, f"member '{decl.name}' is an array of unknown size "
                                      "or a pointer")
            result.append((decl.name, vt))
        return result

    def member(self, node: c_ast.Struct, name: str, coord) -> VarType:
        for member, vt in self.members(node, coord):
            if member == name:
                return vt
        what = f"struct {node.name}" if node.name else "the struct"
        raise CompileError.at(coord, f"no member named '{name}' in {what}")

    def leaves(self, node: c_ast.Struct, coord) -> list[tuple[tuple[tuple[str, tuple], ...], VarType]]:
        """Every scalar member reached from a struct: (path of (member, its dims), type)."""
        result = []
        for name, vt in self.members(node, coord):
            if vt.struct is not None:
                for path, leaf in self.leaves(vt.struct, coord):
                    result.append((((name, vt.dims),) + path, leaf))
            else:
                result.append((((name, vt.dims),), vt))
        return result

    def same(self, a: c_ast.Struct, b: c_ast.Struct, coord) -> bool:
        return self.definition(a, coord) is self.definition(b, coord)

    # -- the device's copy of the types ---------------------------------------
    def device_name(self, node: c_ast.Struct, coord) -> str:
        node = self.definition(node, coord)
        name = node.name or self._typedef_of.get(id(node))
        if name is None:   # `struct { double x; } pos;`: a name of its own for each such type
            if id(node) not in self._anonymous:
                taken = set(self.definitions) | set(self._typedef_of.values()) | set(self._anonymous.values())
                self._anonymous[id(node)] = fresh_name("anon", taken)
            name = self._anonymous[id(node)]
        return f"struct ppcg_{name}"

    def device_types(self, node: c_ast.Struct, coord, out: list[StructType]) -> None:
        """The definitions of `node` and of the structs it contains, innermost first, under
        names of ppcg-py's (members' typedefs resolved): the same layout as the host's
        types, which the kernel files cannot include."""
        name = self.device_name(node, coord)
        if any(t.device_name == name for t in out):
            return
        lines = []
        for member, vt in self.members(node, coord):
            if vt.struct is not None:
                self.device_types(vt.struct, coord, out)
                base = self.device_name(vt.struct, coord)
            else:
                base = vt.base
            dims = "".join(f"[{_GEN.visit(d)}]" for d in vt.dims)
            lines.append(f"  {base} {member}{dims};")
        out.append(StructType(name, f"{name} {{\n" + "\n".join(lines) + "\n};"))


def _with_enumerators(node: c_ast.Node, values: dict[str, int]) -> c_ast.Node:
    """`node` with each enum constant its value (in place)."""
    if isinstance(node, c_ast.ID) and node.name in values:
        value = values[node.name]
        constant = c_ast.Constant("int", str(abs(value)), node.coord)
        return constant if value >= 0 else c_ast.UnaryOp("-", constant, node.coord)
    for slot in node.__slots__:
        value = getattr(node, slot, None) if slot not in ("coord", "__weakref__") else None
        if isinstance(value, c_ast.Node) and not isinstance(node, c_ast.Typename):
            setattr(node, slot, _with_enumerators(value, values))
    return node


# -- member access chains ---------------------------------------------------------
@dataclass
class _Chain:
    """`a[i][j].c[k]`: the variable, then each step (`[]` with a subscript, `.` with a member)."""

    root: c_ast.ID
    steps: list[tuple[str, c_ast.Node]]


def _chain(node: c_ast.Node) -> _Chain | None:
    """The chain of a member access or an element. Through a pointer, `p->x` and
    `(*p).x` are the element `p[0].x`, `(p + i)->x` is `p[i].x` (pet's reading) and
    `(&a[i])->x` is `a[i].x`."""
    steps: list[tuple[str, c_ast.Node]] = []
    while True:
        if isinstance(node, c_ast.ArrayRef):
            steps.append(("[]", node.subscript))
            node = node.name
        elif isinstance(node, c_ast.StructRef):
            steps.append((".", node.field))
            arrow, node = node.type == "->", node.name
            if not arrow and isinstance(node, c_ast.UnaryOp) and node.op == "*":
                arrow, node = True, node.expr
            if arrow and isinstance(node, c_ast.UnaryOp) and node.op == "&":
                node = node.expr   # `(&a[i])->x` (an inlined pointer parameter) is `a[i].x`
            elif arrow:
                node, offset = _pointer_and_offset(node)
                steps.append(("[]", offset))
        elif isinstance(node, c_ast.ID):
            return _Chain(node, steps[::-1])
        else:
            return None


def _pointer_and_offset(node: c_ast.Node) -> tuple[c_ast.Node, c_ast.Node]:
    """`p + i - 1` -> (p, i - 1), `p` -> (p, 0): the pointer of an address and its
    element's index (the pointer written first)."""
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-"):
        pointer, offset = _pointer_and_offset(node.left)
        if isinstance(pointer, (c_ast.ID, c_ast.ArrayRef, c_ast.StructRef)):
            if isinstance(offset, c_ast.Constant) and offset.value == "0":
                offset = node.right if node.op == "+" else c_ast.UnaryOp("-", node.right, node.coord)
            else:
                offset = c_ast.BinaryOp(node.op, offset, node.right, node.coord)
            return pointer, offset
    return node, c_ast.Constant("int", "0", node.coord)


@dataclass(frozen=True)
class _Resolved:
    """Where a chain ends: the members it went through (with their number of
    dimensions), all its subscripts, and the type there."""

    path: tuple[tuple[str, int], ...]
    subscripts: tuple[c_ast.Node, ...]
    dims: tuple                       # every dimension of the variable and the members
    left: int                         # dimensions of the last one not subscripted
    vt: VarType                       # the type reached (its dims: the last one's)


def _resolve_chain(table: StructTable, vt: VarType, chain: _Chain, coord) -> _Resolved:
    path: list[tuple[str, int]] = []
    subscripts: list[c_ast.Node] = []
    dims = list(vt.dims)
    used = 0
    for kind, arg in chain.steps:
        if kind == "[]":
            if used >= len(vt.dims):
                break   # too many subscripts: the builder says how many the array has
            subscripts.append(arg)
            used += 1
            continue
        if used != len(vt.dims) or vt.struct is None:
            what = "an array" if used != len(vt.dims) else "something that is not a struct"
            raise CompileError.at(arg.coord, f"member '{arg.name}' of {what}")
        vt = table.member(vt.struct, arg.name, arg.coord)
        path.append((arg.name, len(vt.dims)))
        dims += list(vt.dims)
        used = 0
    else:
        return _Resolved(tuple(path), tuple(subscripts), tuple(dims), len(vt.dims) - used, vt)
    # more subscripts than dimensions: keep them all, for the builder's message
    extra = [arg for kind, arg in chain.steps if kind == "[]"][len(subscripts):]
    return _Resolved(tuple(path), tuple(subscripts) + tuple(extra), tuple(dims), 0, vt)


def _element(node: c_ast.Node) -> c_ast.Node:
    """`*p` as `p[0]`, `*(p + i)` as `p[i]`; any other expression as it is."""
    if isinstance(node, c_ast.UnaryOp) and node.op == "*":
        pointer, offset = _pointer_and_offset(node.expr)
        if isinstance(pointer, (c_ast.ID, c_ast.ArrayRef, c_ast.StructRef)):
            return c_ast.ArrayRef(pointer, offset, node.coord)
    return node


def _index(base: c_ast.Node, subscripts) -> c_ast.Node:
    for sub in subscripts:
        base = c_ast.ArrayRef(base, sub, base.coord)
    return base


# -- before normalize: struct assignments, struct locals, enum constants -------------
def expand(items, table: StructTable, type_of, taken: set[str]) -> tuple[c_ast.Node, ...]:
    """The region's statements with struct assignments expanded, struct locals split into
    one local per member and enum constants replaced by their values (on a copy).

    `type_of(name, coord)` gives the VarType of a variable visible at the SCoP (None:
    undeclared); `taken` holds every name of the function (new names avoid them)."""
    return tuple(_Expander(table, type_of, taken).block(list(copy.deepcopy(items)), {}))


@dataclass(frozen=True)
class _Local:
    vt: VarType
    names: dict[tuple[str, ...], str] = field(default_factory=dict)   # member path -> its local


class _Expander:
    def __init__(self, table: StructTable, type_of, taken: set[str]) -> None:
        self.table, self.type_of, self.taken = table, type_of, taken

    def fresh(self, base: str) -> str:
        return fresh_name(base, self.taken)

    def vt(self, name: str, scope: dict, coord) -> VarType | None:
        if name in scope:
            found = scope[name]
            return found.vt if isinstance(found, _Local) else found
        return self.type_of(name, coord)

    # -- statements ---------------------------------------------------------
    def block(self, items: list[c_ast.Node], scope: dict) -> list[c_ast.Node]:
        scope = dict(scope)
        out: list[c_ast.Node] = []
        for item in items:
            out.extend(self.statement(item, scope))
        return out

    def statement(self, node: c_ast.Node, scope: dict) -> list[c_ast.Node]:
        """`node` rewritten; declarations update `scope` (the caller's block's)."""
        if isinstance(node, c_ast.Decl):
            return self.declaration(node, scope)
        if isinstance(node, c_ast.DeclList):
            decls = [d for decl in node.decls for d in self.declaration(decl, scope)]
            return [c_ast.DeclList(decls, node.coord)] if all(isinstance(d, c_ast.Decl) for d in decls) else decls
        if isinstance(node, c_ast.Compound):
            return [c_ast.Compound(self.block(list(node.block_items or []), scope), node.coord)]
        if isinstance(node, c_ast.For):
            inner = dict(scope)
            if node.init is not None:
                parts = self.statement(node.init, inner)
                node.init = parts[0] if len(parts) == 1 else c_ast.ExprList(parts, node.coord)
            node.cond = self.expression(node.cond, inner)
            node.next = self.expression(node.next, inner)
            node.stmt = self.single(node.stmt, inner)
            return [node]
        if isinstance(node, c_ast.If):
            node.cond = self.expression(node.cond, scope)
            node.iftrue = self.single(node.iftrue, scope)
            node.iffalse = self.single(node.iffalse, scope)
            return [node]
        if isinstance(node, (c_ast.While, c_ast.DoWhile)):
            node.cond = self.expression(node.cond, scope)
            node.stmt = self.single(node.stmt, scope)
            return [node]
        if isinstance(node, c_ast.Label):
            parts = self.statement(node.stmt, scope)
            node.stmt = parts[0] if len(parts) == 1 else c_ast.Compound(parts, node.coord)
            return [node]
        if isinstance(node, c_ast.Assignment) and node.op == "=":
            copies = self.struct_copy(node, scope)
            if copies is not None:
                return copies
        return [self.expression(node, scope)]

    def single(self, node: c_ast.Node | None, scope: dict) -> c_ast.Node | None:
        if node is None:
            return None
        parts = self.statement(node, dict(scope))
        return parts[0] if len(parts) == 1 else c_ast.Compound(parts, node.coord)

    def declaration(self, decl: c_ast.Decl, scope: dict) -> list[c_ast.Node]:
        if decl.name is None or isinstance(decl.type, c_ast.FuncDecl):
            return [decl]
        try:
            vt = resolve(decl.type, self.table.typedefs)
        except TypeError_:
            scope[decl.name] = None    # the builder reports its type where it is used
            decl.init = self.expression(decl.init, scope)
            return [decl]
        if vt.struct is None:
            decl.init = self.expression(decl.init, scope)
            scope[decl.name] = vt
            return [decl]
        init, decl.init = decl.init, None
        if init is not None and (vt.dims or self.struct_type(_element(init), scope) is None):
            raise CompileError.at(decl.coord, f"initialiser of struct '{decl.name}' declared inside a SCoP "
                                  "(assign its members, or assign it a struct variable or element)")
        if any(d is None for d in vt.dims):
            raise CompileError.at(decl.coord, f"array of structs '{decl.name}' declared inside a SCoP "
                                  "without a size")
        local = _Local(vt)
        out: list[c_ast.Node] = []
        for path, leaf in self.table.leaves(vt.struct, decl.coord):
            # one local per scalar member, with the variable's dimensions, then the members':
            # `struct s t[2];` with `double b[4]` is `double t_b[2][4];`
            name = self.fresh("_".join([decl.name] + [m for m, _ in path]))
            local.names[tuple(m for m, _ in path)] = name
            node: c_ast.Node = c_ast.TypeDecl(name, [], None, c_ast.IdentifierType(leaf.base.split(), decl.coord),
                                              decl.coord)
            for dim in reversed([*vt.dims, *(d for _, dims in path for d in dims)]):
                node = c_ast.ArrayDecl(node, copy.deepcopy(dim), [], decl.coord)
            out.append(c_ast.Decl(name, [], [], [], [], node, None, None, coord=decl.coord))
        scope[decl.name] = local
        if init is not None:   # `struct pt a = pts[i];` (an inlined call's struct parameter too)
            out += self.struct_copy(c_ast.Assignment("=", c_ast.ID(decl.name, decl.coord), init, decl.coord), scope)
        return out

    # -- struct assignment ------------------------------------------------
    def struct_type(self, node: c_ast.Node, scope: dict) -> c_ast.Struct | None:
        """The struct type of an expression that is a whole struct, else None."""
        chain = _chain(node) if isinstance(node, (c_ast.ID, c_ast.ArrayRef, c_ast.StructRef)) else None
        if chain is None:
            return None
        vt = self.vt(chain.root.name, scope, chain.root.coord)
        if vt is None or vt.struct is None:
            return None
        end = _resolve_chain(self.table, vt, chain, node.coord)
        return end.vt.struct if end.left == 0 and end.vt.struct is not None else None

    def struct_copy(self, node: c_ast.Assignment, scope: dict) -> list[c_ast.Node] | None:
        target = self.struct_type(_element(node.lvalue), scope)
        if target is None:
            return None
        node.lvalue, node.rvalue = _element(node.lvalue), _element(node.rvalue)
        source = self.struct_type(node.rvalue, scope)
        if source is None or not self.table.same(target, source, node.coord):
            raise CompileError.at(node.coord, "struct assignment from an expression that is not a struct "
                                  "variable or element of the same type (assign one of those, or the "
                                  "members one by one)")
        out = []
        for path, _ in self.table.leaves(target, node.coord):
            dims = [d for _, ds in path for d in ds]
            iterators = [self.fresh("ppcg_m") for _ in dims]
            subs = iter(iterators)

            def member(base: c_ast.Node) -> c_ast.Node:
                at = copy.deepcopy(base)
                for name, ds in path:
                    at = c_ast.StructRef(at, ".", c_ast.ID(name, node.coord), node.coord)
                    at = _index(at, [c_ast.ID(next(subs), node.coord) for _ in ds])
                return at
            lhs = member(node.lvalue)
            subs = iter(iterators)
            statement: c_ast.Node = c_ast.Assignment("=", lhs, member(node.rvalue), node.coord)
            for it, dim in reversed(list(zip(iterators, dims))):
                init = c_ast.DeclList([c_ast.Decl(it, [], [], [], [], c_ast.TypeDecl(
                    it, [], None, c_ast.IdentifierType(["int"])), c_ast.Constant("int", "0"), None)], node.coord)
                statement = c_ast.For(init, c_ast.BinaryOp("<", c_ast.ID(it), copy.deepcopy(dim)),
                                      c_ast.UnaryOp("p++", c_ast.ID(it)), statement, node.coord)
            out.extend(self.statement(statement, scope))
        return out

    # -- expressions --------------------------------------------------------
    def expression(self, node: c_ast.Node | None, scope: dict):
        if node is None:
            return None
        if isinstance(node, c_ast.ID):
            found = scope[node.name] if node.name in scope else self.type_of(node.name, node.coord)
            if node.name in self.table.enumerators and node.name not in scope and found is None:
                value = self.table.enumerators[node.name]
                constant = c_ast.Constant("int", str(abs(value)), node.coord)
                return constant if value >= 0 else c_ast.UnaryOp("-", constant, node.coord)
            if node.name in self.table.unevaluable and node.name not in scope and found is None:
                raise self.table.unevaluable_use(node.name, node.coord)
            if isinstance(found, _Local):
                raise CompileError.at(node.coord, f"struct '{node.name}' used as a whole value "
                                      f"{_WHOLE}")
            return node
        if isinstance(node, c_ast.StructRef):
            chain = _chain(node)
            if chain is not None and isinstance(scope.get(chain.root.name), _Local):
                local = scope[chain.root.name]
                end = _resolve_chain(self.table, local.vt, chain, node.coord)
                path = tuple(m for m, _ in end.path)
                if path not in local.names:
                    raise CompileError.at(node.coord, f"'{_GEN.visit(node)}' is not a scalar member of "
                                          f"struct '{chain.root.name}'")
                subscripts = [self.expression(sub, scope) for sub in end.subscripts]
                return _index(c_ast.ID(local.names[path], node.coord), subscripts)
        for slot in node.__slots__:
            if slot in ("coord", "__weakref__") or not hasattr(node, slot):
                continue
            if (isinstance(node, c_ast.StructRef) and slot == "field") or \
                    (isinstance(node, c_ast.FuncCall) and slot == "name") or isinstance(node, c_ast.Typename):
                continue
            value = getattr(node, slot)
            if isinstance(value, c_ast.Node):
                setattr(node, slot, self.expression(value, scope))
            elif isinstance(value, list):
                setattr(node, slot, [self.expression(v, scope) if isinstance(v, c_ast.Node) else v for v in value])
        return node


# -- after normalize: member accesses become field arrays ----------------------------
@dataclass(frozen=True)
class Field:
    """One field array: where it lives and its type (the variable's dimensions, then the members')."""

    variable: str
    rank: int
    path: tuple[tuple[str, int], ...]
    vt: VarType

    @property
    def source(self) -> str:
        return self.variable + "".join(f".{name}" for name, _ in self.path)


class FieldArrays:
    """The field arrays of one SCoP, named uniquely in its function."""

    def __init__(self, table: StructTable, type_of, taken: set[str]) -> None:
        self.table, self.type_of, self.taken = table, type_of, taken
        self.fields: dict[str, Field] = {}
        self._by_path: dict[tuple[str, tuple[str, ...]], str] = {}
        self.variables: dict[str, VarType] = {}

    def rewrite(self, node: c_ast.Node):
        """`node` with every member access a reference to a field array (in place)."""
        if isinstance(node, (c_ast.ArrayRef, c_ast.StructRef)):
            chain = _chain(node)
            if chain is not None:
                vt = self.type_of(chain.root.name, chain.root.coord)
                if vt is not None and vt.struct is not None:
                    return self._member(node, chain, vt)
                if isinstance(node, c_ast.StructRef):
                    raise CompileError.at(node.coord, f"member access on '{chain.root.name}', which is not a struct")
        elif isinstance(node, c_ast.StructRef):
            raise CompileError.at(node.coord, "member access on an expression (only on variables and elements)")
        if isinstance(node, c_ast.ID):
            vt = self.type_of(node.name, node.coord)
            if vt is not None and vt.struct is not None:
                raise CompileError.at(node.coord, f"struct '{node.name}' used as a whole value "
                                      f"{_WHOLE}")
            return node
        for slot in node.__slots__:
            if slot in ("coord", "__weakref__") or not hasattr(node, slot):
                continue
            if (isinstance(node, c_ast.FuncCall) and slot == "name") or isinstance(node, c_ast.Typename):
                continue
            value = getattr(node, slot)
            if isinstance(value, c_ast.Node):
                setattr(node, slot, self.rewrite(value))
            elif isinstance(value, list):
                setattr(node, slot, [self.rewrite(v) if isinstance(v, c_ast.Node) else v for v in value])
        return node

    def _member(self, node: c_ast.Node, chain: _Chain, vt: VarType) -> c_ast.Node:
        end = _resolve_chain(self.table, vt, chain, node.coord)
        if end.left == 0 and end.vt.struct is not None:
            raise CompileError.at(node.coord, f"struct '{_GEN.visit(node)}' used as a whole value "
                                  f"{_WHOLE}")
        if not end.path:
            raise CompileError.at(node.coord, f"struct '{chain.root.name}' used as a whole value "
                                  f"{_WHOLE}")
        name = self._field(chain.root.name, vt, end, node.coord)
        subscripts = [self.rewrite(s) for s in end.subscripts]
        return _index(c_ast.ID(name, chain.root.coord), subscripts)

    def _field(self, variable: str, vt: VarType, end: _Resolved, coord) -> str:
        key = (variable, tuple(m for m, _ in end.path))
        if key not in self._by_path:
            name, k = "_".join((variable,) + key[1]), 0
            base = name
            while name in self.taken:
                k += 1
                name = f"{base}_{k}"
            self.taken.add(name)
            self._by_path[key] = name
            self.variables[variable] = vt
            self.fields[name] = Field(variable, len(vt.dims), end.path,
                                      VarType(end.vt.base, end.dims, vt.coord))
        return self._by_path[key]

    def declarations(self) -> dict[str, c_ast.Decl]:
        """A C declaration of each field array (`double rec_x[N][M]`): for the call
        inliner, which checks an argument such as `&rec[i].x[k]` against its array."""
        result = {}
        for name, field_ in self.fields.items():
            vt = field_.vt
            node: c_ast.Node = c_ast.TypeDecl(name, [], None, c_ast.IdentifierType(vt.base.split()))
            for dim in reversed(vt.dims):
                node = c_ast.ArrayDecl(node, copy.deepcopy(dim), [])
            result[name] = c_ast.Decl(name, [], [], [], [], node, None, None, coord=vt.coord)
        return result

    def renamed(self) -> list[tuple[str, str]]:
        """(field array, as the source writes it): for error messages."""
        return [(name, f.source) for name, f in self.fields.items()]

    # -- model ------------------------------------------------------------
    def field_array(self, name: str, extents, known, declared_line, variable_live: bool = True) -> Array:
        f = self.fields[name]
        return Array(name, f.vt.base, extents, known, declared_line=declared_line, live_after=variable_live,
                     member=Member(f.variable, f.rank, f.path))

    def struct_variables(self, arrays: tuple[Array, ...]) -> tuple[tuple[StructVariable, ...], tuple[StructType, ...]]:
        """The struct variables the field arrays live in, and the device's copy of their types."""
        types: list[StructType] = []
        variables = []
        for variable, vt in self.variables.items():
            fields = [a for a in arrays if a.member is not None and a.member.variable == variable]
            if not fields:
                continue
            self.table.device_types(vt.struct, vt.coord, types)
            device = self.table.device_name(vt.struct, vt.coord)
            rank = len(vt.dims)
            leaves = {tuple(m for m, _ in path) for path, leaf in self.table.leaves(vt.struct, vt.coord)
                      if not any(ds for _, ds in path)}
            scalar_fields = {tuple(m for m, _ in a.member.path) for a in fields if a.rank == rank}
            complete = len(leaves) == len(self.table.leaves(vt.struct, vt.coord)) and leaves <= scalar_fields
            array = Array(variable, device, _variable_extents(fields, rank), fields[0].extent_known[:rank],
                          is_scalar=rank == 0, declared_line=fields[0].declared_line)
            variables.append(StructVariable(array, tuple(a.name for a in fields), complete))
        return tuple(variables), tuple(types)


def _variable_extents(fields: list[Array], rank: int) -> tuple:
    """The extents of a struct variable's own dimensions: its fields' (the same where
    declared); where inferred from the accesses (`struct pt *p`), the largest of its
    fields' (`p[i].x` and `p->y` need elements 0 to i)."""
    extents = []
    for k in range(rank):
        extent = fields[0].extents[k]
        if not fields[0].extent_known[k]:
            for other in fields[1:]:
                extent = extent.union_max(other.extents[k].align_params(extent.get_space())).coalesce()
        extents.append(extent)
    return tuple(extents)
