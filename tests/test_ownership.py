"""Ownership checks (codegen/ownership.py): which mapped values the loops around a
statement make evidently a block's or thread's own, so that no check is printed."""
from __future__ import annotations

import pytest
from pycparser import c_parser

from ppcg_py.codegen.ownership import _congruent

_PARSER = c_parser.CParser()


def _expr(text: str):
    return _PARSER.parse(f"int f(void) {{ return {text}; }}").ext[0].body.block_items[0].expr


@pytest.mark.parametrize("start, name, size, congruent", [
    ("t0", "t0", 32, True),
    ("t0 + 32 * c1", "t0", 32, True),
    ("ppcg_max(t0, t0 - 32 * c0 + 4)", "t0", 2, True),
    ("-t0 + 2", "t0", 2, True),                                                 # -1 is 1 modulo 2
    ("ppcg_max(t1, (t1 + 15) % 16 - 32 * c2 + 1)", "t1", 16, True),             # jacobi-2d
    ("ppcg_max(t1, -((t0 - t1 + 15) % 16) + t0 + 32 * c0 - 32 * c1 + 15)", "t1", 16, True),  # covariance
    ("-((-b1 + c0 + 255) % 256) + c0 + 255", "b1", 256, True),
    ("m - 32 * c1", "t0", 2, False),        # fuzz 13:277: a loop both threads ran
    ("t0 + c0", "t0", 2, False),
    ("2 * t0", "t0", 2, False),
    ("(t0 + c0) % 3", "t0", 2, False),      # % by a divisor that is not a multiple of the size
    ("t0 / 2", "t0", 2, False),
    ("ppcg_max(t0, t0 + 1)", "t0", 2, False),
])
def test_start_congruent_to_the_id(start, name, size, congruent):
    assert _congruent(_expr(start), name, size) is congruent
