"""The fuzzer's idioms: the patterns a dependence model must handle (scalars reused,
accumulated, carried, live after a loop or the SCoP; locals assigned late, nested,
shadowing; one array at two footprints or a shift) appear in a fair share of the
programs, are recognised where they are, and never make a program read a scalar
that has no value, which would make its result meaningless."""
from __future__ import annotations

import subprocess
from collections import Counter

import pytest
from fuzz.generate import Features, generate
from fuzz.interp import UndefinedRead, footprint
from fuzz.patterns import PATTERNS, patterns, rates
from fuzz.program import (Arith, ArrayDecl, Assign, Bin, Const, DataIf, If, Local, Loop, Num, Program, Ref,
                          ScalarDecl, Var, While, walk_nodes)
from fuzz.render import render
from fuzz.shrink import _runnable

SAMPLE = 200
NEW = ("scalar_private", "scalar_accumulate", "scalar_after_loop", "scalar_carried", "scalar_temporary",
       "local_assigned", "local_nested", "local_shadow", "array_shifted", "array_buffer")
# the forms of forms.py are drawn from a stream of their own, but change the program's
# statements: the idioms' tests leave them out on both sides
NO_FORMS = dict(early_returns=False, pencil=False, member_calls=False, c_only=False)
OFF = Features(scalar_flow=False, local_scopes=False, array_overlap=False, dynamic=False, external=False,
               products=False, stencils=False, **NO_FORMS)

N = (("n", 6),)
A1 = ArrayDecl("A", "double", 1)
B1 = ArrayDecl("B", "double", 1)
i = Var("i")


def _program(*scops, scalars=(), arrays=(A1, B1), split=False) -> Program:
    return Program(params=N, arrays=arrays, scalars=tuple(scalars), scops=tuple(scops), split_functions=split)


def _loop(*body, var="i", hi=Var("n")) -> Loop:
    return Loop(var, Const(0), hi, tuple(body))


def _a(sub=i) -> Ref:
    return Ref("A", (sub,))


def _b(sub=i) -> Ref:
    return Ref("B", (sub,))


T_TEMP = ScalarDecl("t", "double", 0.5, True, live_out=False, initialised=False)
T_SET = ScalarDecl("t", "double", 0.5, True, live_out=False)
S_IO = ScalarDecl("s", "double", 0.5, True)


@pytest.fixture(scope="module")
def sample() -> list[Program]:
    return [generate(f"patterns:{k}") for k in range(SAMPLE)]


def test_each_pattern_appears_in_a_fair_share_of_programs(sample):
    """The idioms' patterns in 10-35% of the programs (a few come from the base
    programs as well); the others, which the base programs had often, stay."""
    share = rates(sample)
    for name in NEW:
        assert 0.10 <= share[name] <= 0.35, (name, share)
    for name in set(PATTERNS) - set(NEW) - {"scalar_across_scops"}:
        assert share[name] >= 0.2, (name, share)


def test_without_the_idioms_the_new_patterns_are_rare():
    """Features scalar_flow, local_scopes and array_overlap off give the programs
    of before: no temporaries, no local declared without a value, no shadowing."""
    share = rates([generate(f"patterns:{k}", OFF) for k in range(60)])
    for name in ("scalar_temporary", "local_assigned", "local_shadow", "array_shifted", "array_buffer"):
        assert share[name] == 0, (name, share)


def test_the_idioms_only_add_to_the_base_program():
    """The idioms draw from their own random stream: the base program is the same
    statements in the same order, with the idioms' statements between them."""
    kept = 0
    for k in range(30):
        base, enriched = generate(f"patterns:{k}", OFF), generate(f"patterns:{k}", Features(dynamic=False,
                                                                                         **NO_FORMS))
        if base.params != enriched.params:
            continue  # the idioms made the program too long for its sizes: smaller ones
        kept += 1
        buffers = enriched.arrays[len(base.arrays):]     # the buffer idiom's new rows
        assert base.arrays == enriched.arrays[:len(base.arrays)] and all(b.name.startswith(("buf", "prod", "field", "fnext")) for b in buffers)
        for before, after in zip(base.scops, enriched.scops[:len(base.scops)], strict=True):
            assert _subsequence(_statements(before), _statements(after)), render(enriched)
        for alone in enriched.scops[len(base.scops):]:    # a stencil's SCoP of its own, after the others
            assert {s.target.name for s in _statements(alone) if isinstance(s, Assign)} <= {b.name for b in buffers}, \
                render(enriched)
    assert kept >= 20


def _statements(nodes):
    return [n for n in walk_nodes(nodes) if isinstance(n, (Assign, Local))]


def _subsequence(short, long) -> bool:
    it = iter(long)
    return all(any(x == y for y in it) for x in short)


def test_generated_scalars_have_a_value_wherever_they_are_read(sample):
    """generate() runs the interpreter, which raises UndefinedRead: none did; and
    the temporaries declared without a value are among them."""
    temps = [s for p in sample for s in p.scalars if s.temporary]
    assert any(not s.initialised for s in temps) and any(s.initialised for s in temps)
    locals_ = [n for p in sample for scop in p.scops for n in walk_nodes(scop) if isinstance(n, Local)]
    assert any(n.init is None for n in locals_)


def test_generated_programs_are_valid_c(sample, tmp_path):
    """gcc's front end on every program: a local given a name another one has in the
    same block, or an idiom that takes a local for the temporary it hides (`%` on a
    float), is an error or a warning here."""
    files = []
    for k, program in enumerate(sample):
        files.append(tmp_path / f"p{k}.c")
        files[-1].write_text(render(program))
    proc = subprocess.run(["gcc", "-fsyntax-only", "-std=c99", "-Wall", "-Wno-unknown-pragmas",
                           "-Wno-unused-variable", "-Wno-unused-but-set-variable", "-Wno-unused-function",
                           "-Wno-tautological-compare", *map(str, files)], capture_output=True, text=True)
    assert proc.returncode == 0 and not proc.stderr.strip(), proc.stderr[:3000]


# -- the interpreter's scalar flows and patterns, on hand-written programs ----------
def test_a_scalar_written_then_read_in_one_iteration_is_private():
    """`t = A[i] * 2; B[i] = t + 1;` with t a temporary of the function."""
    body = (Assign(Ref("t"), "=", Arith("*", _a(), Num(2.0))), Assign(_b(), "=", Arith("+", Ref("t"), Num(1.0))))
    found = patterns(_program((_loop(*body),), scalars=(T_TEMP,)))
    assert {"scalar_private", "scalar_temporary"} <= found
    assert "scalar_carried" not in found


def test_an_accumulation_read_after_its_loop():
    """`s = 0; for k: s += A[k]; B[i] = s;` (symm's temp2)."""
    inner = Loop("k", Const(0), i, (Assign(Ref("s"), "+=", _a(Var("k"))),))
    body = (Assign(Ref("s"), "=", Num(0.0)), inner, Assign(_b(), "=", Ref("s")))
    found = patterns(_program((_loop(*body),), scalars=(S_IO,)))
    assert {"scalar_accumulate", "scalar_live_out", "scalar_private"} <= found


def test_a_value_read_after_the_loop_that_assigned_it():
    """`for i: t = A[i]; B[0] = t;`: the last iteration's value."""
    scop = (_loop(Assign(Ref("t"), "=", _a())), Assign(_b(Const(0)), "=", Ref("t")))
    assert "scalar_after_loop" in patterns(_program(scop, scalars=(T_SET,)))


def test_a_value_read_before_it_is_written_is_carried():
    """`for i: { B[i] = t; t = A[i]; }`: iteration i reads iteration i-1's value."""
    scop = (_loop(Assign(_b(), "=", Ref("t")), Assign(Ref("t"), "=", _a())),)
    found = patterns(_program(scop, scalars=(T_SET,)))
    assert "scalar_carried" in found and "scalar_private" not in found


def test_a_temporary_written_by_one_scop_and_read_by_the_next():
    first, second = (_loop(Assign(Ref("t"), "=", _a())),), (_loop(Assign(_b(), "+=", Ref("t"))),)
    assert "scalar_across_scops" in patterns(_program(first, second, scalars=(T_SET,)))
    assert "scalar_across_scops" not in patterns(_program(first, second, scalars=(T_SET,), split=True))


def test_scalars_pass_from_scop_to_scop_in_some_programs(sample):
    """Only programs with two SCoPs in one function can (about 9%)."""
    assert rates(sample)["scalar_across_scops"] >= 0.03


def test_locals_assigned_late_nested_and_shadowing():
    inner = Loop("k", Const(0), i, (Local("double", "t", Ref("s")), Assign(_b(Var("k")), "=", Ref("t"))))
    body = (Local("double", "s", None), Assign(Ref("s"), "=", _a()), inner, Assign(_b(), "+=", Ref("s")))
    found = patterns(_program((_loop(*body),), scalars=(S_IO,)))
    assert {"local_declared", "local_assigned", "local_nested", "local_shadow"} <= found


def test_array_patterns():
    n2 = Bin("/", Var("n"), Const(2))
    two = ArrayDecl("A", "double", 2)
    k = Var("k")
    syrk = Assign(Ref("B", (i,)), "+=", Arith("*", Ref("A", (i, k)), Ref("A", (Var("j"), k))))
    stencil = Assign(Ref("A", (i, k)), "=", Arith("+", Ref("A", (i, Bin("+", k, Const(1)))),
                                                  Ref("A", (Bin("+", i, Const(1)), k))))
    halves = Assign(_a(), "=", _a(Bin("+", i, n2)))
    nest = _loop(Loop("j", Const(0), Var("n"), (Loop("k", Const(0), Var("n"), (syrk, stencil)),)))
    found = patterns(_program((nest, _loop(halves, hi=n2)), arrays=(two, A1, B1)))
    assert {"array_two_reads", "array_in_place", "array_shifted"} <= found
    plain = _loop(Assign(_a(), "=", Arith("+", _a(Bin("+", i, Const(1))), _b())))
    assert not {"array_two_reads", "array_in_place", "array_shifted"} & patterns(_program((plain,)))


# -- reads without a value are refused ---------------------------------------------
def test_a_local_declared_without_a_value_must_be_assigned_first():
    ok = _loop(Local("double", "t", None), Assign(Ref("t"), "=", _a()), Assign(_b(), "=", Ref("t")))
    footprint(_program((ok,)))
    with pytest.raises(UndefinedRead):
        footprint(_program((_loop(Local("double", "t", None), Assign(_b(), "=", Ref("t"))),)))


def test_a_local_is_new_in_every_iteration():
    """Assigned in the first iteration only: the second reads a new, empty local."""
    body = (Local("double", "t", None), If(_cmp_eq(i, 0), (Assign(Ref("t"), "=", _a()),)),
            Assign(_b(), "=", Ref("t")))
    with pytest.raises(UndefinedRead):
        footprint(_program((_loop(*body),)))


def _cmp_eq(var, value):
    from fuzz.program import Cmp
    return Cmp("==", var, Const(value))


def test_an_initialiser_sees_the_local_it_initialises():
    """`double s = s + 1;` reads the new, empty `s`, not the outer one (C's scope rule)."""
    bad = _loop(Local("double", "s", Arith("+", Ref("s"), Num(1.0))), Assign(_b(), "=", Ref("s")))
    with pytest.raises(UndefinedRead):
        footprint(_program((bad,), scalars=(S_IO,)))


def test_each_function_has_its_own_temporaries():
    """A temporary written by the first function is a new one in the second; an in-out
    scalar passes from one to the next."""
    first, second = (_loop(Assign(Ref("t"), "=", _a())),), (_loop(Assign(_b(), "=", Ref("t"))),)
    footprint(_program(first, second, scalars=(T_TEMP,)))
    with pytest.raises(UndefinedRead):
        footprint(_program(first, second, scalars=(T_TEMP,), split=True))
    s_first, s_second = (_loop(Assign(Ref("s"), "=", _a())),), (_loop(Assign(_b(), "=", Ref("s"))),)
    footprint(_program(s_first, s_second, scalars=(S_IO,), split=True))


def test_the_shrinker_never_keeps_a_read_without_a_value():
    body = (Assign(Ref("t"), "=", _a()), Assign(_b(), "=", Ref("t")))
    program = _program((_loop(*body),), scalars=(T_TEMP,))
    assert _runnable((program, ()))
    assert not _runnable((program.with_scops(((_loop(body[1]),),)), ()))


# -- rendering ------------------------------------------------------------------------
def test_temporaries_live_in_the_function_and_in_out_scalars_are_dumped():
    body = (Assign(Ref("t"), "=", _a()), Assign(Ref("u"), "=", Ref("t")), Assign(Ref("s"), "+=", Ref("u")),
            Local("double", "v", None), Assign(Ref("v"), "=", Ref("t")), Assign(_b(), "=", Ref("v")))
    u = ScalarDecl("u", "double", 0.25, True, live_out=False)
    text = render(_program((_loop(*body),), scalars=(T_TEMP, u, S_IO)))
    function = text[:text.index("int main")]
    assert "  double t;\n" in function and "  double u = 0.25;\n" in function
    assert "    double v;\n" in function
    assert 'dump_double("s"' in text and 'dump_double("t"' not in text and "t_io" not in text


def test_dynamic_control_is_generated():
    """ifs on data and while loops (fuzz/dynamic.py) appear in a fair share of programs."""
    kinds = Counter(type(n).__name__ for k in range(120) for scop in generate(f"dynamic:{k}").scops
                    for n in walk_nodes(scop) if isinstance(n, (DataIf, While)))
    assert kinds["DataIf"] >= 10 and kinds["While"] >= 2, kinds


def test_patterns_skip_subscript_samples_the_program_never_runs():
    """Fuzz 2812:526: `umax` of a negative value at a sample of the parameters that no
    run reaches stopped the campaign's report of the case (a generator verdict)."""
    from fuzz.campaign import make_case
    program, _ = make_case("2812:526")
    assert "array_two_reads" in patterns(program)
