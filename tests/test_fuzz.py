"""A fixed-seed slice of the differential fuzzer in the normal test suite.

Each case is a random static-control program (tests/fuzz/generate.py) compiled
with a random option set and verified against gcc by the harness. Rejections
with a clean located error are accepted; anything else fails the test with the
command that replays the case. `make fuzz` runs the same thing at scale.
"""
from __future__ import annotations

import pytest
from fuzz.campaign import make_case
from fuzz.render import render
from fuzz.runner import run_case

SEED = "ci"
COUNT = 50
NVCC_EVERY = 10           # every 10th case also goes through nvcc (when installed)
CPU_LIMIT_S = 60          # per process; ppcg-py gets --timeout 30 per try, each try a forked child
KNOWN: dict[int, str] = {}  # index -> the saved regression that explains its failure


@pytest.mark.parametrize("index", range(COUNT))
def test_random_program(index, tmp_path):
    if index in KNOWN:
        pytest.xfail(KNOWN[index])
    program, args = make_case(f"{SEED}:{index}")
    use_nvcc = None if index % NVCC_EVERY == 0 else False
    outcome = run_case(render(program), program, args, tmp_path, use_nvcc=use_nvcc, cpu_limit=CPU_LIMIT_S)
    assert outcome.verdict in ("pass", "rejection"), (
        f"{outcome.verdict} {outcome.detail}\n{outcome.message[:3000]}\n"
        f"replay: cd tests && python -m fuzz --replay {SEED}:{index} [--shrink-one --save]")


# Cases whose matrix product (`idioms.product`) gets register blocks on the C target:
# the blocks' copies and local arrays, checked against gcc with 1, 2 and 4 threads.
BLOCKED = ("91:22", "91:25", "91:34", "91:37")


@pytest.mark.parametrize("name", BLOCKED)
def test_random_program_with_register_blocks(name, tmp_path):
    program, args = make_case(name, target="c")
    outcome = run_case(render(program), program, args, tmp_path, use_nvcc=False, cpu_limit=CPU_LIMIT_S)
    assert outcome.verdict == "pass", (
        f"{outcome.verdict} {outcome.detail}\n{outcome.message[:3000]}\n"
        f"replay: cd tests && python -m fuzz --target c --replay {name} [--shrink-one --save]")
    generated = sorted(tmp_path.rglob("*.ppcg.c"))
    assert generated and any("reg_" in p.read_text() for p in generated), \
        f"{name} no longer gets register blocks: pick cases that do (tests/fuzz/idioms.py, product)"


# Cases with a time-iterated stencil over new grids (`idioms.stencil`): Gauss-Seidel in
# place (93:13, 1-D), Jacobi with two arrays (93:24 2-D, 93:160 1-D), Jacobi with a `% 2`
# time dimension (93:185 3-D, 93:187 2-D); on the C target (tiled, 1, 2 and 4 threads;
# all but 93:24 tiled along time) and on CUDA (two thread orders; 93:24 and 93:187 split
# along time by --hybrid).
STENCILS = ("93:13", "93:24", "93:160", "93:185", "93:187")


@pytest.mark.parametrize("target", ["c", "cuda"])
@pytest.mark.parametrize("name", STENCILS)
def test_random_program_with_a_stencil(name, target, tmp_path):
    program, args = make_case(name, target=target)
    assert "field" in render(program) or "fnext" in render(program), \
        f"{name} no longer has a stencil: pick cases that do (tests/fuzz/idioms.py, stencil)"
    outcome = run_case(render(program), program, args, tmp_path, use_nvcc=False, cpu_limit=CPU_LIMIT_S)
    assert outcome.verdict == "pass", (
        f"{outcome.verdict} {outcome.detail}\n{outcome.message[:3000]}\n"
        f"replay: cd tests && python -m fuzz --target {target} --replay {name} [--shrink-one --save]")


def test_hybrid_skips_a_loop_with_a_statement_that_never_runs(tmp_path):
    """Fuzz 2863:74 (stencils in every program): a statement under contradictory
    conditions (`i + i <= n` and not) has no instances, so no sweep's filter holds it;
    --hybrid indexed its step and crashed. The loop now keeps isl's schedule."""
    from fuzz.generate import Features
    program, args = make_case("2863:74", Features(stencils_always=True), target="cuda")
    assert "--hybrid" in args
    outcome = run_case(render(program), program, args, tmp_path, use_nvcc=False, cpu_limit=CPU_LIMIT_S)
    assert outcome.verdict == "pass", f"{outcome.verdict} {outcome.detail}\n{outcome.message[:3000]}"
