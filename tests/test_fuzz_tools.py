"""The fuzzer's own parts: a fuzzer that produces undefined behaviour, or a shrinker
that loses the failure, would make every verdict worthless."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from fuzz.campaign import make_case
from fuzz.generate import generate
from fuzz.interp import c_div, c_mod, footprint
from fuzz.program import (Arith, ArrayDecl, Assign, Call, CastTo, Const, Local, Loop, Num, Program, Ref,
                          ScalarDecl, data_refs, walk_nodes)
from fuzz.render import render, render_library
from fuzz.runner import classify_compiler, data_type_of, normalise_reason
from fuzz.shrink import shrink


def test_generation_is_deterministic():
    assert render(generate("x:1")) == render(generate("x:1"))
    assert make_case("x:2") == make_case("x:2")
    assert render(generate("x:1")) != render(generate("x:2"))


def test_c_division_truncates():
    assert (c_div(-7, 2), c_mod(-7, 2)) == (-3, -1)
    assert (c_div(7, -2), c_mod(7, -2)) == (-3, 1)


@pytest.mark.parametrize("index", range(12))
def test_generated_programs_have_no_undefined_behaviour(index, tmp_path):
    """gcc with ASan and UBSan: in-bounds subscripts, no overflow, a full dump; and no
    scalar gcc can see is read before it has a value (interp checks every read)."""
    src = tmp_path / "p.c"
    program = generate(f"ub:{index}")
    src.write_text(render(program))
    sources = [str(src)]
    if (lib := render_library(program)) is not None:   # the functions it only declares
        (tmp_path / "p_lib.c").write_text(lib)
        sources.append(str(tmp_path / "p_lib.c"))
    exe = tmp_path / "p"
    subprocess.run(["gcc", "-O1", "-Werror=uninitialized", "-fsanitize=address,undefined",
                    "-fno-sanitize-recover=all", "-o", str(exe), *sources, "-lm"], check=True, capture_output=True)
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "==BEGIN DUMP_ARRAYS==" in proc.stderr and "==END   DUMP_ARRAYS==" in proc.stderr


def test_footprint_bounds_every_subscript():
    program = generate("fp:3")
    fp = footprint(program)
    assert fp.instances > 0
    text = render(program, fp)
    assert "#pragma scop" in text and "#pragma endscop" in text


def _has_call(case) -> bool:
    program = case[0]
    for scop in program.scops:
        for node in walk_nodes(scop):
            if isinstance(node, Assign) and any(isinstance(e, Call) for e in _subexpressions(node.rhs)):
                return True
    return False


def _subexpressions(expr):
    yield expr
    for name in ("a", "b", "x", "y"):
        child = getattr(expr, name, None)
        if child is not None and not isinstance(child, str):
            yield from _subexpressions(child)
    for arg in getattr(expr, "args", ()):
        yield from _subexpressions(arg)


def test_shrinker_keeps_the_failure_and_removes_the_rest():
    case = next(c for c in (make_case(f"shrink:{k}") for k in range(200)) if _has_call(c)
                and sum(1 for s in c[0].scops for _ in walk_nodes(s)) > 4)
    small = shrink(case, _has_call, budget_s=60)
    assert _has_call(small)
    nodes = [n for s in small[0].scops for n in walk_nodes(s)]
    assert len(nodes) <= 3, render(small[0])
    assert small[1] == ()
    refs = [r for n in nodes if isinstance(n, Assign) for r in data_refs(n.rhs)]
    assert len(refs) <= 1


def _proc(code: int, err: str) -> subprocess.CompletedProcess[str]:
    return subprocess.CompletedProcess(["ppcg-py"], code, "", err)


def test_classify_compiler_outcomes():
    src = Path("/x/prog.c")
    assert classify_compiler(_proc(0, ""), src) is None
    rej = classify_compiler(_proc(1, "/x/prog.c:3:4: error: non-affine loop condition: 'i * j'\n"), src)
    assert (rej.verdict, rej.detail) == ("rejection", "non-affine loop condition: '…'")
    opt = classify_compiler(_proc(1, "error: --sizes: cannot parse '{'\n"), src)
    assert opt.verdict == "rejection"
    ice = classify_compiler(_proc(3, "/x/prog.c: error: internal compiler error (KeyError: 'c0'); set ...\n"), src)
    assert ice.verdict == "ice" and ice.detail.startswith("KeyError")
    assert classify_compiler(_proc(-11, ""), src).verdict == "crash"
    assert classify_compiler(_proc(1, "a\nb\n"), src).verdict == "bad-error"
    assert classify_compiler(_proc(124, "timed out"), src).verdict == "timeout"
    assert normalise_reason("use of undeclared identifier 'v1' (line 4)") == "use of undeclared identifier '…'"


def test_timeouts_name_the_stage_that_was_running():
    from fuzz.runner import _running_stage, _split_verbose
    report, rest = _split_verbose("ppcg-py: extract: 3.1 ms\nppcg-py: schedule (f): 9.0 ms\n"
                                  "ppcg-py: memory: 2.0 ms\nppcg-py: kernel0 (f): tile [32]\n"
                                  "x.c:1:1: error: boom\n")
    assert rest == "x.c:1:1: error: boom\n"
    assert _running_stage(report) == "codegen"
    assert _running_stage([]) == "extract"


def _one_statement(rhs, *, local=None, scalars=()) -> Program:
    body = ((local,) if local else ()) + (Assign(Ref("A", (Ref("i"),)), "=", rhs),)
    loop = Loop("i", Const(0), Const(4), body)
    return Program(params=(), arrays=(ArrayDecl("A", "double", 1),), scalars=scalars, scops=((loop,),))


def test_tolerance_follows_the_least_precise_type_computed_in():
    """A double array computed through a float value is compared as float: the device
    rounds there too, and computes `sqrt` of a float as `sqrtf` (found: seed 1:329)."""
    x = Ref("A", (Ref("i"),))
    assert data_type_of(_one_statement(Arith("*", x, Num(0.5)))) == "double"
    assert data_type_of(_one_statement(Arith("*", x, Num(0.5, "float")))) == "float"
    assert data_type_of(_one_statement(CastTo("float", x))) == "float"
    assert data_type_of(_one_statement(Ref("v"), local=Local("float", "v", x))) == "float"
    alpha = ScalarDecl("alpha", "float", 1.5, written=False)
    assert data_type_of(_one_statement(Arith("*", x, Ref("alpha")), scalars=(alpha,))) == "float"


def test_a_program_that_equals_only_its_cxx_build_passes_as_cxx():
    from fuzz.runner import AS_CXX, classify_report
    from ppcg_py.verify.harness import VerifyReport

    differs = {"forward": ("r[0]: expected 1.5, got 0",), "reverse": ()}
    as_cxx = VerifyReport(Path("p.c"), (), differs, {}, {"forward": (), "reverse": ()})
    assert (classify_report(as_cxx).verdict, classify_report(as_cxx).detail) == ("pass", AS_CXX)
    wrong = VerifyReport(Path("p.c"), (), differs, {}, {"forward": ("r[0]: expected 0, got 2",), "reverse": ()})
    assert classify_report(wrong).verdict == "mismatch"
    assert classify_report(VerifyReport(Path("p.c"), (), differs)).verdict == "mismatch"
