"""C integer constant expressions (C11 6.6), evaluated as gcc does on LP64 targets.

An enum constant's value may be any such expression, and system headers use many
forms of it: gcc's omp.h has `omp_atv_default = (__UINTPTR_TYPE__) -1`, that is
`(long unsigned int) -1`. Every value carries its C type (width and signedness),
so that a cast wraps, the usual arithmetic conversions hold (`-1 < 0U` is 0) and
`sizeof` of an expression is its type's size. What is not such an expression, or
needs what the front end does not know (the layout of a struct, a variable), raises
`NotConstant`.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pycparser import c_ast


class NotConstant(ValueError):
    """Not an integer constant expression that the front end evaluates."""


@dataclass(frozen=True)
class IntType:
    """A C integer type by its width in bits and signedness (LP64)."""

    bits: int
    signed: bool

    def wrap(self, value: int) -> int:
        """`value` converted to this type: modulo 2^bits (gcc's choice for signed types too)."""
        value &= (1 << self.bits) - 1
        return value - (1 << self.bits) if self.signed and value >> (self.bits - 1) else value

    def holds(self, value: int) -> bool:
        return self.wrap(value) == value

    @property
    def size(self) -> int:
        return self.bits // 8


INT, UINT, LONG, ULONG = IntType(32, True), IntType(32, False), IntType(64, True), IntType(64, False)
_CHAR = IntType(8, True)    # plain char is signed on x86-64
_BOOL = IntType(8, False)   # its size; a conversion to _Bool is a comparison with 0
_FLOAT_SIZES = {"float": 4, "double": 8}
_Value = tuple[int, IntType]


def evaluate(node: c_ast.Node, names: Mapping[str, int],
             typedefs: Mapping[str, c_ast.Node] | None = None) -> int:
    """The value of the integer constant expression `node`; `names` gives the enum
    constants known so far, `typedefs` the file's typedefs (for casts and sizeof)."""
    return _Evaluator(names, typedefs or {}).value(node)[0]


def type_of_enumerator(value: int) -> IntType:
    """The type gcc gives an enum constant: int where the value fits, else the enum's
    wider type."""
    return next((t for t in (INT, UINT, LONG) if t.holds(value)), ULONG)


class _Evaluator:
    def __init__(self, names: Mapping[str, int], typedefs: Mapping[str, c_ast.Node]) -> None:
        self.names, self.typedefs = names, typedefs

    def value(self, node: c_ast.Node) -> _Value:
        method: Callable[[c_ast.Node], _Value] | None = getattr(self, f"_{type(node).__name__}", None)
        if method is None:
            raise NotConstant(f"{type(node).__name__} in a constant expression")
        return method(node)

    def _Constant(self, node: c_ast.Constant) -> _Value:
        if node.type == "char" or node.value.endswith("'"):   # 'ab' is an int constant to pycparser
            return _character(node.value)
        if node.type == "bool":   # C23's true and false
            return int(node.value == "true"), INT
        if node.type.endswith("int") and "_BitInt" not in node.type:
            return _integer(node.value)
        raise NotConstant(f"{node.type} constant {node.value}")

    def _ID(self, node: c_ast.ID) -> _Value:
        if node.name not in self.names:
            raise NotConstant(f"'{node.name}' is not an enum constant with a known value")
        value = self.names[node.name]
        return value, type_of_enumerator(value)

    def _UnaryOp(self, node: c_ast.UnaryOp) -> _Value:
        if node.op == "sizeof":
            return self._size_of(node.expr), ULONG
        value, kind = self.value(node.expr)
        if node.op == "!":
            return int(value == 0), INT
        kind = _promoted(kind)
        ops = {"-": lambda: -value, "+": lambda: value, "~": lambda: ~value}
        if node.op not in ops:
            raise NotConstant(f"operator '{node.op}' in a constant expression")
        return kind.wrap(ops[node.op]()), kind

    def _BinaryOp(self, node: c_ast.BinaryOp) -> _Value:
        if node.op in ("&&", "||"):
            left = self.value(node.left)[0] != 0
            if left == (node.op == "||"):
                return int(left), INT
            return int(self.value(node.right)[0] != 0), INT
        (a, ta), (b, tb) = self.value(node.left), self.value(node.right)
        if node.op in ("<<", ">>"):
            kind = _promoted(ta)
            if not 0 <= b < kind.bits:
                raise NotConstant(f"shift by {b} of a {kind.bits}-bit value")
            return kind.wrap(a << b if node.op == "<<" else a >> b), kind
        kind = _common(ta, tb)
        a, b = kind.wrap(a), kind.wrap(b)
        if node.op in _COMPARISONS:
            return int(_COMPARISONS[node.op](a, b)), INT
        if node.op in ("/", "%"):
            if b == 0:
                raise NotConstant("division by zero")
            quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)   # C truncates
            return kind.wrap(quotient if node.op == "/" else a - b * quotient), kind
        if node.op not in _ARITHMETIC:
            raise NotConstant(f"operator '{node.op}' in a constant expression")
        return kind.wrap(_ARITHMETIC[node.op](a, b)), kind

    def _TernaryOp(self, node: c_ast.TernaryOp) -> _Value:
        taken, other = (node.iftrue, node.iffalse) if self.value(node.cond)[0] else (node.iffalse, node.iftrue)
        value, kind = self.value(taken)
        try:   # the result has the common type of both branches
            kind = _common(kind, self.value(other)[1])
        except NotConstant:
            pass
        return kind.wrap(value), kind

    def _Cast(self, node: c_ast.Cast) -> _Value:
        kind = self._integer_type(node.to_type)
        operand = node.expr
        if isinstance(operand, c_ast.Constant) and operand.type in ("float", "double", "long double"):
            value = int(_floating(operand.value))   # `(int) 2.5`: a floating constant cast at once
        else:
            value = self.value(operand)[0]
        if kind is _BOOL:
            return int(value != 0), INT
        return kind.wrap(value), kind

    # -- types ------------------------------------------------------------------
    def _integer_type(self, typename: c_ast.Typename) -> IntType:
        scalar = self._scalar(typename.type)
        if not isinstance(scalar, IntType):
            raise NotConstant("cast to a type that is not an integer type")
        return scalar

    def _scalar(self, node: c_ast.Node) -> IntType | int:
        """The integer type a declarator names, or the size of any other type it names."""
        if isinstance(node, c_ast.PtrDecl):
            return 8
        if isinstance(node, c_ast.ArrayDecl):
            if node.dim is None:
                raise NotConstant("sizeof of an array of unknown size")
            element = self._scalar(node.type)
            return self.value(node.dim)[0] * (element.size if isinstance(element, IntType) else element)
        if isinstance(node, c_ast.TypeDecl):
            base = node.type
            if isinstance(base, c_ast.Enum):
                return INT
            if isinstance(base, c_ast.IdentifierType):
                if len(base.names) == 1 and base.names[0] in self.typedefs:
                    return self._scalar(self.typedefs[base.names[0]])
                return _named_type(base.names)
        raise NotConstant("the size of a struct or union")

    def _size_of(self, operand: c_ast.Node) -> int:
        if isinstance(operand, c_ast.Typename):
            scalar = self._scalar(operand.type)
        elif isinstance(operand, c_ast.Constant) and operand.type == "string":
            raise NotConstant("sizeof of a string literal")
        else:
            scalar = self.value(operand)[1]
        return scalar.size if isinstance(scalar, IntType) else scalar


_COMPARISONS: dict[str, Callable[[int, int], bool]] = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    ">": lambda a, b: a > b, "<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b}
_ARITHMETIC: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b}


def _promoted(kind: IntType) -> IntType:
    """The integer promotion: types narrower than int become int."""
    return INT if kind.bits < 32 else kind


def _common(a: IntType, b: IntType) -> IntType:
    """The usual arithmetic conversions of two integer types: the wider one, and of two
    as wide, the unsigned one (LP64: long and long long are both 64 bits)."""
    a, b = _promoted(a), _promoted(b)
    if a.bits != b.bits:
        return a if a.bits > b.bits else b
    return a if not a.signed else b


def _named_type(names: list[str]) -> IntType | int:
    """The type of a list of type specifiers (`long unsigned int`), or the size of a
    floating type."""
    words = sorted(names)
    if "_Bool" in words:
        return _BOOL
    for floating, size in _FLOAT_SIZES.items():
        if floating in words:
            return 16 if "long" in words and floating == "double" else size
    if "void" in words or any(w not in ("signed", "unsigned", "char", "short", "int", "long") for w in words):
        raise NotConstant(f"type '{' '.join(names)}'")
    signed = "unsigned" not in words
    if "char" in words:
        return IntType(8, signed)
    if "short" in words:
        return IntType(16, signed)
    return IntType(64 if "long" in words else 32, signed)


_INTEGER = re.compile(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)([uUlL]*)$")


def _integer(text: str) -> _Value:
    """An integer constant and its type (C11 6.4.4.1: the first type of its list that
    holds it; a hexadecimal or octal constant may be unsigned)."""
    m = _INTEGER.match(text)
    if m is None:
        raise NotConstant(f"integer constant {text}")
    digits, suffix = m.group(1), m.group(2).lower()
    if digits[:2].lower() in ("0x", "0b"):
        value = int(digits, 0)
    else:
        value = int(digits, 8) if len(digits) > 1 and digits[0] == "0" else int(digits)
    decimal = digits[0] != "0" or digits == "0"
    candidates = [INT, UINT, LONG, ULONG] if "l" not in suffix else [LONG, ULONG]
    candidates = [t for t in candidates if ("u" not in suffix or not t.signed) and (not decimal or t.signed
                                                                                      or "u" in suffix)]
    for kind in candidates:
        if kind.holds(value):
            return value, kind
    if value < 1 << 64:
        return value, ULONG     # gcc: a decimal constant too large for long is unsigned
    raise NotConstant(f"integer constant {text} too large")


_ESCAPES = {"n": 10, "t": 9, "r": 13, "a": 7, "b": 8, "f": 12, "v": 11, "e": 27, "\\": 92, "'": 39,
            '"': 34, "?": 63}
_CHARACTER = re.compile(r"\\(?:([0-7]{1,3})|x([0-9a-fA-F]+)|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|(.))|(.)",
                        re.DOTALL)
_WIDE = {"L": IntType(32, True), "u": IntType(16, False), "U": IntType(32, False), "u8": IntType(8, False)}


def _character(text: str) -> _Value:
    """A character constant ('a', '\\n', L'x'): int, of the char's value ('\\xff' is -1,
    as char is signed); several characters make gcc's multi-character constant."""
    prefix, body = text.split("'", 1)
    codes: list[int] = []
    for m in _CHARACTER.finditer(body[:-1]):
        if m.group(6) is not None and not prefix:   # a source character: its bytes
            codes += m.group(6).encode("utf-8", "surrogateescape")
        else:
            codes.append(_code(m))
    if not codes:
        raise NotConstant("empty character constant")
    if prefix:
        if prefix not in _WIDE:
            raise NotConstant(f"character constant {text}")
        kind = _WIDE[prefix]
        return kind.wrap(codes[-1]), INT if kind.signed else _promoted(kind)
    if len(codes) == 1:
        return _CHAR.wrap(codes[0]), INT
    value = 0
    for code in codes:
        value = (value << 8) | (code & 0xFF)
    return INT.wrap(value), INT


def _code(m: re.Match[str]) -> int:
    octal, hexadecimal, short, long_, escaped, plain = m.groups()
    if octal or hexadecimal or short or long_:
        return int(octal, 8) if octal else int(hexadecimal or short or long_, 16)
    if escaped is not None:
        if escaped not in _ESCAPES:
            raise NotConstant(f"escape sequence \\{escaped}")
        return _ESCAPES[escaped]
    return ord(plain)


def _floating(text: str) -> float:
    text = text.rstrip("fFlL")
    return float.fromhex(text) if text[:2].lower() == "0x" else float(text)
