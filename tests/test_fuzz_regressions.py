"""Replay every saved reproducer in tests/regressions/ (NAME.c + NAME.json).

A case whose JSON has an `xfail` reason documents a known bug (in a stage this
suite does not fix); it is expected to fail until the bug is fixed, and then
shows up as XPASS: delete the `xfail` entry to turn it into a guard.
"""
from __future__ import annotations

import pytest
from fuzz import corpus

CASES = corpus.load_all()


def test_corpus_is_well_formed():
    for case in CASES:
        assert case.source.exists(), f"{case.name}.json without {case.name}.c"
        assert case.expect in ("pass", "rejection"), case.name
        assert case.expect == "pass" or case.reason, f"{case.name}: a rejection needs its reason"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_regression(case, tmp_path, request):
    if case.xfail:
        request.applymarker(pytest.mark.xfail(reason=case.xfail, strict=False))
    outcome = corpus.replay(case, tmp_path)
    if case.expect == "rejection":
        assert outcome.verdict == "rejection", f"{outcome.verdict}: {outcome.message[:2000]}"
        assert case.reason in outcome.message, outcome.message
    else:
        assert outcome.verdict == "pass", f"{outcome.verdict} {outcome.detail}\n{outcome.message[:3000]}"
