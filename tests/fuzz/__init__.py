"""Differential fuzzing of ppcg-py.

Random static-control C programs (`generate`, with the `idioms` it inserts:
scalars a compiler may privatise or must keep live, locals in nested scopes,
overlapping references to one array; `patterns` says which a program has) are
compiled by ppcg-py with random option sets (`options`) and checked by the
verification harness against gcc's build of the same program (`runner`). A failure is shrunk (`shrink`) and kept as
a regression (`corpus`). `python -m fuzz` (from tests/) runs a campaign.

The program model (`program`) is small on purpose: it is both printed as C
(`render`) and interpreted (`interp`) to choose array extents that keep every
subscript in bounds and to refuse a read of a scalar that has no value, so that
a mismatch always means a compiler bug, never undefined behaviour in the
generated test.
"""
