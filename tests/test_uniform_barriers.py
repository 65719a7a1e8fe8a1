"""A kernel's barriers out of the uniform conditions around them (OpenCL:
codegen/uniform_barriers.py), which PoCL miscompiled (fuzz 2980:8, 2980:121)."""
from __future__ import annotations

import re

import pytest
from pycparser import c_ast, c_parser

from ppcg_py.codegen.printer import c_lines
from ppcg_py.codegen.uniform_barriers import barriers_out_of_conditions

IDS = frozenset({"t0", "t1"})


def _hoisted(body: str) -> str:
    """The kernel body `body` (C statements) after the transformation, as text."""
    function = c_parser.CParser().parse(f"void k(void) {{ {body} }}").ext[0]
    statements = barriers_out_of_conditions(function.body.block_items, IDS)
    return "\n".join(c_lines(statements, ""))


def _squeezed(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def test_a_uniform_condition_is_kept_in_a_flag_and_the_barriers_run_outside_it():
    text = _hoisted("if (b0 <= 1 && c0 >= 4) { barrier(1); A[t0] = 1; barrier(1); B[t0] = A[t0 + 1]; }")
    assert _squeezed(text) == _squeezed("""
        int ppcg_uniform0 = b0 <= 1 && c0 >= 4;
        barrier(1);
        if (ppcg_uniform0) { A[t0] = 1; }
        barrier(1);
        if (ppcg_uniform0) { B[t0] = A[t0 + 1]; }"""), text


def test_an_inner_condition_is_taken_out_first_and_its_flag_declared_outside():
    text = _hoisted("if (b0 <= 1) { barrier(1); if (c0 == 2) { A[t0] = 1; barrier(1); B[t0] = 2; } }")
    assert text.count("barrier(1);") == 2
    assert all(not line.startswith(" ") for line in text.splitlines() if "barrier" in line), text
    assert _squeezed(text).startswith("int ppcg_uniform0; int ppcg_uniform1 = b0 <= 1;"), text
    assert "ppcg_uniform0 = c0 == 2;" in text and "if (ppcg_uniform0)" in text, text


@pytest.mark.parametrize("body", [
    "if (t0 <= 1) { barrier(1); A[t0] = 1; }",                        # names a work-item id
    "if (b0 <= 1) { barrier(1); A[t0] = 1; } else { A[t0] = 2; }",    # an else
    "if (b0 <= 1) { for (int c = 0; c < n; c++) { barrier(1); A[c] = 1; } }",  # a barrier in a loop
    "if (b0 <= 1) { int x = 3; barrier(1); A[t0] = x; }",             # a declaration the pieces share
    "if (b0 <= 1) { A[t0] = 1; }",                                    # no barrier
])
def test_what_stays_as_it_is(body):
    assert _squeezed(_hoisted(body)) == _squeezed("\n".join(c_lines(
        c_parser.CParser().parse(f"void k(void) {{ {body} }}").ext[0].body.block_items, "")))


def test_barriers_in_a_loop_inside_a_uniform_condition_of_the_loop():
    text = _hoisted("for (int c = 0; c < n; c++) if (c0 > c) { barrier(1); A[t0] = c; }")
    assert "int ppcg_uniform0 = c0 > c;" in text and "if (ppcg_uniform0)" in text, text
    assert isinstance(c_parser.CParser().parse(f"void k(void) {{ {text} }}").ext[0], c_ast.FuncDef)
