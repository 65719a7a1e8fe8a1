"""Early returns of an inlined function, rewritten into structured control flow.

A callee inlined into a SCoP (calls.py) becomes statements of the caller, where a
`return` cannot stay: it would leave the caller. As pet and clang-based tools do in
effect, the code that follows a `return` inside an `if` moves into the branch that
does not return, and the returned value is assigned to a result variable of the
call, so that the game-of-life rule

    if (c == 1 && (n == 2 || n == 3)) return 1;
    if (c == 0 && n == 3) return 1;
    return 0;

becomes `if (...) r = 1; else if (...) r = 1; else r = 0;`: plain statements with
static structure, nothing carried between calls, so the loops around the call stay
parallel (a name the branch declares and the rest uses is renamed in the branch).
Where the rest would have to be copied into both branches and is large, a local
flag of the call records that the function has returned and guards the rest
(`if (!done) { ... }`). A `return` inside a loop of the callee sets that
flag and leaves the loop with `break` (`if (done) break;` after an inner loop): the
builder keeps such a loop whole as dynamic control, local to one call. A `return`
inside a `switch` or a labelled statement is rejected where it is.
"""
from __future__ import annotations

import copy
from collections.abc import Callable, Container
from dataclasses import dataclass, field

from pycparser import c_ast

from ..diagnostics import CompileError
from ..names import fresh_name
from .c_walk import all_names, nodes_of

# Beyond this many nodes, the rest of a body that both branches of an `if` fall into
# is guarded by the flag rather than copied into each branch.
_COPY_LIMIT = 120

_LOOPS = (c_ast.For, c_ast.While, c_ast.DoWhile)


@dataclass
class _Rewrite:
    """The state of one callee's rewrite: the names of its result and flag."""

    callee: str
    result: str | None
    flag: str
    taken: set[str]             # the callee's names, and those given so far
    flag_used: bool = field(default=False)

    # -- sequences ------------------------------------------------------------
    def sequence(self, items: list[c_ast.Node], flagged: bool) -> list[c_ast.Node]:
        """`items` with no `return` left, outside any loop of the callee; `flagged`:
        whether a `return` must also set the flag (something after it checks that)."""
        out: list[c_ast.Node] = []
        for k, item in enumerate(items):
            if not _returns_in(item):
                out.append(item)
                continue
            rest = items[k + 1:]
            if isinstance(item, c_ast.Return):
                return out + self.exit(item, flagged, in_loop=False)
            if isinstance(item, c_ast.Compound):
                return out + self.sequence(self.apart(_items(item), rest) + rest, flagged)
            if isinstance(item, c_ast.If):
                return out + self.branches(item, rest, flagged)
            if isinstance(item, _LOOPS):
                return out + [self.loop(item)] + self.guard(rest, flagged)
            raise self.unsupported(item)
        return out

    def branches(self, node: c_ast.If, rest: list[c_ast.Node], flagged: bool) -> list[c_ast.Node]:
        """An `if` that returns somewhere, followed by `rest`: the rest goes into each
        branch that may fall through, or, where it would be copied into both and is
        large, after the `if` behind the flag."""
        then, other = _items(node.iftrue), _items(node.iffalse)
        then_ends, other_ends = _always_returns(then), _always_returns(other)
        if rest and not then_ends and not other_ends and _size(rest) > _COPY_LIMIT:
            return [self._if(node, self.sequence(then, True), self.sequence(other, True))] + self.guard(rest, flagged)
        then = self.sequence(then if then_ends else self.apart(then, rest) + copy.deepcopy(rest), flagged)
        other = self.sequence(other if other_ends else self.apart(other, rest) + copy.deepcopy(rest), flagged)
        return [self._if(node, then, other)]

    def apart(self, block: list[c_ast.Node], rest: list[c_ast.Node]) -> list[c_ast.Node]:
        """`block` with each name it declares at its top that `rest` uses renamed from
        its declaration on, so that `rest` can follow it in one scope."""
        used = set().union(*(all_names(item) for item in rest)) if rest else set()
        block = list(block)
        for k, item in enumerate(block):
            if isinstance(item, c_ast.Decl) and item.name in used:
                renaming = {item.name: fresh_name(item.name, self.taken)}
                block[k:] = [_renamed(node, renaming) for node in block[k:]]
        return block

    def guard(self, rest: list[c_ast.Node], flagged: bool) -> list[c_ast.Node]:
        """`if (!done) { rest }`, after a statement whose returns set the flag."""
        if not rest:
            return []
        self.flag_used = True
        where = rest[0].coord
        test = c_ast.UnaryOp("!", c_ast.ID(self.flag, where), where)
        return [c_ast.If(test, c_ast.Compound(self.sequence(rest, flagged), where), None, where)]

    # -- loops ----------------------------------------------------------------
    def loop(self, node: c_ast.Node) -> c_ast.Node:
        """A loop of the callee that returns: each `return` sets the flag and breaks."""
        node.stmt = c_ast.Compound(self.in_loop(_items(node.stmt)), node.stmt.coord)
        return node

    def in_loop(self, items: list[c_ast.Node]) -> list[c_ast.Node]:
        """A loop body's statements: a `return` leaves the loop at once, so what
        follows it needs no guard, but an inner loop that returned must be left too."""
        out: list[c_ast.Node] = []
        for item in items:
            if not _returns_in(item):
                out.append(item)
            elif isinstance(item, c_ast.Return):
                out.extend(self.exit(item, True, in_loop=True))
            elif isinstance(item, c_ast.Compound):
                out.append(c_ast.Compound(self.in_loop(_items(item)), item.coord))
            elif isinstance(item, c_ast.If):
                out.append(self._if(item, self.in_loop(_items(item.iftrue)), self.in_loop(_items(item.iffalse))))
            elif isinstance(item, _LOOPS):
                where = item.coord
                out += [self.loop(item), c_ast.If(c_ast.ID(self.flag, where), c_ast.Break(where), None, where)]
            else:
                raise self.unsupported(item)
        return out

    # -- leaves ---------------------------------------------------------------
    def exit(self, node: c_ast.Return, flagged: bool, *, in_loop: bool) -> list[c_ast.Node]:
        """What a `return E;` becomes: the result assigned, the flag set where
        something checks it, and a `break` out of the callee's loop."""
        where = node.coord
        out: list[c_ast.Node] = []
        if node.expr is not None:
            if self.result is None:
                raise CompileError.at(where, f"'{self.callee}' returns void but returns a value here")
            out.append(c_ast.Assignment("=", c_ast.ID(self.result, where), node.expr, where))
        if flagged or in_loop:
            self.flag_used = True
            out.append(c_ast.Assignment("=", c_ast.ID(self.flag, where), c_ast.Constant("int", "1", where), where))
        if in_loop:
            out.append(c_ast.Break(where))
        return out

    def unsupported(self, node: c_ast.Node) -> CompileError:
        where = nodes_of(node, c_ast.Return)[0].coord
        kind = "a switch" if nodes_of(node, c_ast.Switch) else "a labelled statement"
        return CompileError.at(where, f"'return' inside {kind} in '{self.callee}' (a function called in a SCoP "
                               "may return inside ifs and loops, not there)")

    @staticmethod
    def _if(node: c_ast.If, then: list[c_ast.Node], other: list[c_ast.Node]) -> c_ast.If:
        where = node.coord
        return c_ast.If(node.cond, c_ast.Compound(then, where), c_ast.Compound(other, where) if other else None, where)


def structure_returns(body: c_ast.Compound, fdef: c_ast.FuncDef,
                      convert: Callable[[c_ast.Node], c_ast.Node] = lambda value: value,
                      inlined: Container[str] = ()) -> tuple[c_ast.Node | None, bool]:
    """Take the callee's returns out of `body` (in place); the value of the call: the
    final `return E;`'s E where that is the only return (the body is left as it was
    written); where the returns leave nothing but ifs choosing the value, the choice
    as `c ? E1 : E2` with each E converted by `convert` (no statement, no variable:
    a scalar written under a condition that reads memory is only a may-write, which
    can tie the loops around the call together); else a result variable declared at
    the top of the body. `inlined`: functions whose calls become statements, which
    must stay in their branch. The flag says whether the value is such a choice, whose
    conditions may read a parameter several times."""
    callee = fdef.decl.name
    items = list(body.block_items or [])
    last = items[-1] if items and isinstance(items[-1], c_ast.Return) else None
    if not any(_returns_in(item) for item in items if item is not last):
        body.block_items = items[:-1] if last is not None else items
        return (last.expr if last is not None else None), False
    taken = all_names(fdef)
    result_type = _result_type(fdef)
    result = fresh_name("result", taken) if result_type is not None else None
    rewrite = _Rewrite(callee, result, fresh_name("returned", taken), taken)
    items = rewrite.sequence(items, False)
    if result is not None and not rewrite.flag_used:
        choice = _choice(items, result, convert, inlined)
        if choice is not None:
            body.block_items = []
            return choice, True
    where = body.coord
    head: list[c_ast.Node] = []
    if result is not None:
        head.append(_declaration(result, result_type, None, where))
    if rewrite.flag_used:
        flag_type = c_ast.TypeDecl(None, [], None, c_ast.IdentifierType(["int"]))
        head.append(_declaration(rewrite.flag, flag_type, c_ast.Constant("int", "0", where), where))
    body.block_items = head + items
    return (c_ast.ID(result, where) if result is not None else None), False


def _choice(items: list[c_ast.Node], result: str, convert: Callable[[c_ast.Node], c_ast.Node],
            inlined: Container[str]) -> c_ast.Node | None:
    """`c ? E1 : E2` for statements that are only ifs, with an else each, around one
    `result = E;` per branch; None for anything else."""
    if len(items) != 1 or any(isinstance(call.name, c_ast.ID) and call.name.name in inlined
                              for call in nodes_of(items[0], c_ast.FuncCall)):
        return None
    node = items[0]
    if isinstance(node, c_ast.Compound):
        return _choice(_items(node), result, convert, inlined)
    if isinstance(node, c_ast.Assignment) and node.op == "=" and isinstance(node.lvalue, c_ast.ID) \
            and node.lvalue.name == result:
        return convert(node.rvalue)
    if not isinstance(node, c_ast.If) or node.iffalse is None:
        return None
    then = _choice(_items(node.iftrue), result, convert, inlined)
    other = _choice(_items(node.iffalse), result, convert, inlined)
    if then is None or other is None:
        return None
    return c_ast.TernaryOp(node.cond, then, other, node.coord)


def _result_type(fdef: c_ast.FuncDef) -> c_ast.TypeDecl | None:
    """The callee's return type, for its result variable (None: void)."""
    declared = fdef.decl.type.type
    if isinstance(declared, c_ast.TypeDecl) and isinstance(declared.type, c_ast.IdentifierType) \
            and declared.type.names == ["void"]:
        return None
    if not isinstance(declared, c_ast.TypeDecl):
        raise CompileError.at(fdef.coord, f"'{fdef.decl.name}' returns a pointer or array and returns before "
                              "its end (a function called in a SCoP that returns early must return a value "
                              "or nothing)")
    return declared


def _declaration(name: str, type_node: c_ast.TypeDecl, init: c_ast.Node | None, where) -> c_ast.Decl:
    declared = copy.deepcopy(type_node)
    declared.declname = name
    declared.quals = [q for q in declared.quals if q != "const"]
    return c_ast.Decl(name, [], [], [], [], declared, init, None, where)


def _items(node: c_ast.Node | None) -> list[c_ast.Node]:
    if node is None:
        return []
    return list(node.block_items or []) if isinstance(node, c_ast.Compound) else [node]


def _returns_in(node: c_ast.Node) -> bool:
    return bool(nodes_of(node, c_ast.Return))


def _always_returns(items: list[c_ast.Node]) -> bool:
    """Whether every path through `items` reaches a `return` (loops: assumed not)."""
    for item in items:
        if isinstance(item, c_ast.Return):
            return True
        if isinstance(item, c_ast.Compound) and _always_returns(_items(item)):
            return True
        if isinstance(item, c_ast.If) and item.iffalse is not None \
                and _always_returns(_items(item.iftrue)) and _always_returns(_items(item.iffalse)):
            return True
    return False


def _renamed(node: c_ast.Node, renaming: dict[str, str]) -> c_ast.Node:
    """`node` with the variables of `renaming` renamed (in place), members and
    function names left alone."""
    if isinstance(node, c_ast.ID) and node.name in renaming:
        node.name = renaming[node.name]
    if isinstance(node, c_ast.Decl) and node.name in renaming:
        node.name = renaming[node.name]
        inner = node.type
        while not isinstance(inner, c_ast.TypeDecl) and hasattr(inner, "type"):
            inner = inner.type
        if isinstance(inner, c_ast.TypeDecl):
            inner.declname = node.name
    for name, child in node.children():
        if not (isinstance(node, c_ast.StructRef) and name == "field") \
                and not (isinstance(node, c_ast.FuncCall) and name == "name"):
            _renamed(child, renaming)
    return node


def _size(items: list[c_ast.Node]) -> int:
    return sum(len(nodes_of(item, c_ast.Node)) for item in items)
