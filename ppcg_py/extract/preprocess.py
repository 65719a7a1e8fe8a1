"""Run the C preprocessor and parse its output with pycparser.

System headers are full of GNU extensions pycparser does not know; undefining
`__GNUC__` and defining the remaining keywords away makes glibc's headers parse
without changing the meaning of the user's code.

Locations are the input's own lines: the output is the input with its SCoPs
replaced, line for line, so a `#line` directive of the input (a generator's, as
bison and re2c write them) must not move them. Such an input is preprocessed
from standard input with its line directives blanked out (`-iquote` its folder,
so that `#include "x.h"` finds what it found beside the file). The text is read
and passed on as bytes: a comment in Latin-1 is no error (the preprocessor's
output is decoded with surrogateescape, and comments are gone from it anyway).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess

from pycparser import c_ast, c_parser

from ..diagnostics import CompileError

GNU_NEUTRALISERS = (
    "-U__GNUC__", "-D__STRICT_ANSI__",
    "-D__attribute__(x)=", "-D__extension__=", "-D__restrict=", "-D__restrict__=",
    "-D__inline=inline", "-D__inline__=inline", "-D__asm__(x)=", "-D__asm(x)=",
    "-D__builtin_va_list=int", "-D__const=const", "-D__volatile__=volatile",
)


def preprocess(path: str, include_dirs: tuple[str, ...] = (),
               defines: tuple[str, ...] = ()) -> str:
    """The preprocessed text of `path` (line markers kept for locations)."""
    if not os.path.isfile(path):
        reason = "no such file" if not os.path.exists(path) else "not a regular file"
        raise CompileError(f"cannot read input: {reason}", path)
    if not os.access(path, os.R_OK):
        raise CompileError("cannot read input: permission denied", path)
    with open(path, "rb") as handle:
        data = handle.read()
    blanked = _LINE_DIRECTIVE.sub(b"", data)
    if blanked == data:
        command, given = _cpp_command(path, include_dirs, defines, ["-E"]), None
    else:   # from standard input, named as the file (a BOM is only skipped at the very start)
        name = path.encode("utf-8", "surrogateescape").replace(b"\\", b"\\\\").replace(b'"', b'\\"')
        given = b'# 1 "' + name + b'"\n' + blanked.removeprefix(b"\xef\xbb\xbf")
        command = _cpp_command("-", include_dirs, defines,
                               ["-E", "-x", "c", f"-iquote{os.path.dirname(path) or '.'}"])
    proc = subprocess.run(command, input=given, capture_output=True)
    stdout, stderr = (out.decode("utf-8", "surrogateescape") for out in (proc.stdout, proc.stderr))
    if proc.returncode != 0:
        raise _preprocessor_error(stderr, path)
    return strip_system_headers(stdout)


# `#line 12 "gen.y"` and its GNU form `# 12 "gen.y"`; the directive's text only, so
# that the lines keep their numbers.
_LINE_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(?:line[ \t]+)?[0-9][^\r\n]*", re.MULTILINE)


def dependency_rule(path: str, targets: tuple[str, ...], include_dirs: tuple[str, ...] = (),
                    defines: tuple[str, ...] = (), *, quote: bool = True) -> str:
    """A Make rule `targets: path header...` for the files `preprocess` reads.

    The preprocessor itself lists them (gcc -M with the same flags as `preprocess`,
    system headers included), with an empty rule for each header (-MP), so that
    Make does not stop when a header is deleted. `quote`: escape the targets for
    Make (-MQ) rather than take them as written (-MT).
    """
    flag = "-MQ" if quote else "-MT"
    extra = ["-M", "-MP", *(arg for target in targets for arg in (flag, target))]
    proc = subprocess.run(_cpp_command(path, include_dirs, defines, extra), capture_output=True,
                          encoding="utf-8", errors="surrogateescape")
    if proc.returncode != 0:
        raise _preprocessor_error(proc.stderr, path)
    return proc.stdout


def _cpp_command(path: str, include_dirs: tuple[str, ...], defines: tuple[str, ...],
                 mode: list[str]) -> list[str]:
    cpp = shutil.which("gcc") or shutil.which("cpp")
    if cpp is None:
        raise CompileError("no C preprocessor (gcc or cpp) on the PATH", path)
    return [cpp, *mode, "-std=gnu99", *GNU_NEUTRALISERS,
            *(f"-I{d}" for d in include_dirs), *(f"-D{d}" for d in defines), path]


_LINEMARKER = re.compile(r'^# \d+ "([^"]*)"((?: \d)*)\s*$')


def strip_system_headers(text: str) -> str:
    """Keep only the typedefs of system headers: pycparser needs their names, nothing else.

    Parsing glibc's declarations is most of the front end's time, and no SCoP can use
    them (calls are checked by name, globals of system headers are not SCoP data).
    Every line keeps its place and each kept typedef its lines and columns, so that a
    location is right in a header (an enum constant of a typedef) as in the user's files.
    """
    out: list[str] = []
    section: list[str] = []         # lines of system headers in a row, their line markers included
    system_files: set[str] = set()  # entered as system headers (flags 1 and 3)
    lines = text.split("\n")       # a line ends at "\n" only, as for pycparser
    if lines and not lines[-1]:
        lines.pop()
    for line in lines:
        marker = _LINEMARKER.match(line) if line.startswith("# ") else None
        if marker:
            name, flags = marker.group(1), marker.group(2).split()
            if "1" in flags and "3" in flags:
                system_files.add(name)
            # A system macro expanded in user code is marked "3" but names the user's
            # file; a command-line macro (-D__builtin_va_list=int) expanded in a system
            # header is marked with no flag but names the header: the file decides.
            if name in system_files:
                section.append(line)
                continue
            if section:
                out.append(_typedefs_only("\n".join(section)))
                section = []
            out.append(line)
        elif section:
            section.append(line)
        else:
            out.append(line)
    if section:
        out.append(_typedefs_only("\n".join(section)))
    return "\n".join(out) + "\n"


# what the depth count of `_typedefs_only` looks at; a directive line is skipped whole
_STRUCTURE = re.compile(r"^#[^\n]*|[;(){}\[\]]", re.MULTILINE)
# a statement that starts with `typedef`, after blanks and directive lines
_TYPEDEF_START = re.compile(r"(?:\s|^#[^\n]*+)*+typedef\b", re.MULTILINE)


def _typedefs_only(section: str) -> str:
    """A header section with its top-level typedefs where they are and every other
    line empty (line markers kept): as many lines as `section`."""
    pieces: list[str] = []
    kept_end = start = depth = 0
    for token in _STRUCTURE.finditer(section):
        char = token.group()[0]
        if char in "({[":
            depth += 1
        elif char in ")}]":
            depth -= 1
        elif char == ";" and depth == 0:
            typedef = _TYPEDEF_START.match(section, start)
            if typedef:
                begin = typedef.end() - len("typedef")
                pieces += [_blanked(section[kept_end:begin]), section[begin:token.end()]]
                kept_end = token.end()
            start = token.end()
    pieces.append(_blanked(section[kept_end:]))
    return "".join(pieces)


def _blanked(gap: str) -> str:
    """`gap` as empty lines, its line markers kept, then spaces up to the column where
    the kept text after it starts."""
    lines = gap.split("\n")
    kept = [line if line.startswith("# ") and _LINEMARKER.match(line) else "" for line in lines[:-1]]
    return "\n".join([*kept, " " * len(lines[-1])])


def _preprocessor_error(stderr: str, path: str) -> CompileError:
    for line in stderr.splitlines():
        m = re.match(r"^(.*?):(\d+):(\d+): (?:fatal )?error: (.*)$", line)
        if m:
            return CompileError(m.group(4), m.group(1), int(m.group(2)), int(m.group(3)))
    first = stderr.strip().splitlines()[0] if stderr.strip() else "preprocessing failed"
    return CompileError(first, path)


class CParser(c_parser.CParser):
    """pycparser's parser, which also reads K&R definitions without a return type.

    pycparser 3's path for a definition with an implicit `int` wants '{' right after
    the declarator, so `main(argc, argv) int argc; char **argv; { ... }` (valid C89)
    is an "Invalid function definition"; its path with a type already reads the
    declaration list. This overrides that one path with pycparser 3's internals
    (`_peek`, `_starts_declaration`, `_parse_id_declarator`, `_parse_function_definition`):
    pyproject.toml pins pycparser to 3.x for them.
    """

    def _parse_external_declaration(self) -> list[c_ast.Node]:
        tok = self._peek()
        if tok is None or tok.type in _NOT_IMPLICIT_INT or self._starts_declaration(tok):
            return super()._parse_external_declaration()
        decl = self._parse_id_declarator()
        if self._peek_type() != "LBRACE" and not self._starts_declaration():
            self._parse_error("Invalid function definition", decl.coord)
        spec = {"qual": [], "alignment": [], "storage": [], "function": [], "type_attributes": [],
                "type": [c_ast.IdentifierType(["int"], coord=decl.coord)]}   # as pycparser's own path
        return [self._parse_function_definition(spec, decl)]


# the tokens `CParser._parse_external_declaration` leaves to pycparser before its implicit-int path
_NOT_IMPLICIT_INT = frozenset({"ATTRIBUTE_BEGIN", "PPHASH", "PPPRAGMA", "_PRAGMA", "SEMI", "_STATIC_ASSERT"})


def parse(text: str, path: str) -> c_ast.FileAST:
    """Parse preprocessed C; a syntax error becomes a located CompileError."""
    parser = CParser()
    try:
        return parser.parse(text, filename=path)
    except c_parser.ParseError as exc:
        if "At end of input" in str(exc):
            line, col = _end_of(path)
            raise CompileError("syntax error at end of input (a '}' or ')' is missing?)",
                               path, line, col) from None
        msg = _locate(parser, str(exc))
        m = re.match(r"^(.*?):(\d+):(\d+): (.*)$", msg)
        if m:
            detail = m.group(4)
            detail = f"syntax error {detail}" if detail.startswith("before") else detail
            return _raise(CompileError(detail, m.group(1), int(m.group(2)), int(m.group(3))))
        m = re.match(r"^(.*?):(\d+): (.*)$", msg)
        if m:
            return _raise(CompileError(m.group(3), m.group(1), int(m.group(2)), 1))
        raise CompileError(f"syntax error: {msg}", path) from None


def _end_of(path: str) -> tuple[int, int]:
    """Line and column just after the last character of a file."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        lines = handle.read().rstrip().splitlines() or [""]
    return len(lines), len(lines[-1]) + 1


def _locate(parser: c_parser.CParser, msg: str) -> str:
    """Some pycparser errors name only the file: add the next token's position."""
    if re.match(r"^.*?:\d+:", msg):
        return msg
    tok = None
    try:  # pycparser internals: the token the parser stopped at
        tok = parser._tokens.peek()  # noqa: SLF001
    except Exception:  # noqa: BLE001 - best effort only
        pass
    if tok is None or not getattr(tok, "lineno", None):
        return msg
    detail = msg.split(": ", 1)[-1].lower()
    return f"{parser.clex.filename}:{tok.lineno}:{getattr(tok, 'column', 1) or 1}: syntax error: {detail} near '{tok.value}'"


def _raise(err: CompileError):
    raise err from None
