"""The fuzzer's own parts: a fuzzer that produces undefined behaviour, or a shrinker
that loses the failure, would make every verdict worthless."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from fuzz.campaign import make_case
from fuzz.generate import Features, generate
from fuzz.interp import c_div, c_mod, footprint
from fuzz.program import (Arith, ArrayDecl, Assign, Call, CastTo, Const, Local, Loop, Num, Program, Ref,
                          ScalarDecl, data_refs, walk_nodes)
from fuzz.render import render, render_library
from fuzz.runner import classify_compiler, data_type_of, normalise_reason, retried_crash
from fuzz.shrink import shrink


def test_generation_is_deterministic():
    assert render(generate("x:1")) == render(generate("x:1"))
    assert make_case("x:2") == make_case("x:2")
    assert render(generate("x:1")) != render(generate("x:2"))


@pytest.mark.parametrize("target, flags", [("c", ["--target=c", "--openmp", "--tile"]),
                                           ("opencl", ["--target=opencl"]), ("cuda", [])])
def test_a_campaign_aimed_at_one_target_gives_every_case_that_target(target, flags):
    for index in range(12):
        _, args = make_case(f"5:{index}", target=target)
        drawn = [a for a in args if a.startswith("--target") or a in ("--openmp", "--tile")]
        assert drawn == flags, args
    _, drawn_args = make_case("5:3")
    assert make_case("5:3", target="cuda")[1] == tuple(a for a in drawn_args if a not in
                                                        ("--target=c", "--openmp", "--tile", "--target=opencl"))


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


def test_a_generated_program_that_reads_an_unwritten_scalar_is_dropped():
    """Fuzz 2814:679: an attempt whose program read a scalar before any write ended the
    case as a generator failure; the attempt is now dropped and the next one taken."""
    program = generate("2814:679")
    assert footprint(program, 10 ** 6).instances > 0


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


def test_a_crash_survived_by_compiling_again_is_a_crash():
    """The compiling process died and the retry with simpler options made correct code:
    still a bug; a step the watchdog ended (SIGKILL, SIGXCPU) is a time bound, no crash."""
    died = ("/x/prog.c:12:1: warning: memory (run): the compiling process died (killed by signal 11); "
            "compiling again with the original loop order and global memory only\n")
    crash = retried_crash(died)
    assert crash.verdict == "crash" and crash.detail == "killed by signal 11, compiled again"
    assert retried_crash(died.replace("signal 11", "signal 9")) is None
    assert retried_crash(died.replace("signal 11", "signal 24")) is None
    assert retried_crash(died.replace("killed by signal 11", "exit status 1")).verdict == "crash"
    assert retried_crash("/x/prog.c:3:1: warning: schedule (run) did not finish within 300 s; ...") is None


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


# -- calls of functions the program only declares (feature `external`) ---------------
def _build_and_dump(tmp_path, name: str, program) -> str:
    src, lib = tmp_path / f"{name}.c", tmp_path / f"{name}_lib.c"
    src.write_text(render(program))
    lib.write_text(render_library(program))
    exe = tmp_path / name
    subprocess.run(["gcc", "-O1", "-o", str(exe), str(src), str(lib), "-lm"], check=True, capture_output=True)
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, check=True).stderr


def test_external_calls_are_declared_in_the_program_and_defined_in_the_second_file(tmp_path):
    """Every form appears; each function the program declares (and only those) is
    defined in the library, which builds as C and as C++ (the CUDA emulation's way)."""
    import re

    from fuzz.external import _kind, externals_used
    from fuzz.program import ExtCall, Ptr, pointer_refs
    programs = [generate(f"ext:{k}") for k in range(40)]
    with_calls = [p for p in programs if externals_used(p)]
    assert 10 <= len(with_calls) <= 35
    kinds = {_kind(fn)[0] for p in with_calls for fn in externals_used(p)}
    assert kinds == {"log", "draw", "scale_row", "mean_row", "bump", "cmix", "gget", "gput",
                     "scale_block", "sum_block"}     # the last two: member arrays passed whole (forms.py)
    assert any(p.globals for p in with_calls)
    pointers = [ptr for p in with_calls for s in p.scops for n in walk_nodes(s) if isinstance(n, ExtCall)
                for a in n.args for ptr in pointer_refs(a)]
    assert any(isinstance(x, Ptr) and x.address and not x.ref.subs for x in pointers)      # &s
    assert any(x.address and x.ref.subs for x in pointers) and any(not x.address for x in pointers)
    for k, program in enumerate(with_calls[:6]):
        text, lib = render(program), render_library(program)
        declared = set(re.findall(r"^(?:__attribute__\(\(const\)\) )?\w+ (ext_\w+)\(", text, re.M))
        defined = set(re.findall(r"^\w+ (ext_\w+)\(", lib, re.M))
        assert declared == defined == set(externals_used(program)) | {"ext_trace"}, (declared, defined)
        assert not re.search(r"^\w[^;]*\bext_\w+\([^;]*\)\s*\{", text, re.M)    # no body in the program
        for flags in (["-x", "c"], ["-x", "c++"]):
            (tmp_path / f"l{k}.c").write_text(lib)
            subprocess.run(["gcc", "-fsyntax-only", "-Wall", "-Werror", *flags, str(tmp_path / f"l{k}.c")],
                           check=True, capture_output=True)
    assert not any(externals_used(generate(f"ext:{k}", Features(external=False))) for k in range(40))


def test_a_skipped_external_call_shows_in_the_dump(tmp_path):
    """The hidden state is dumped: without one call that runs once, the dump differs."""
    from fuzz.external import externals_used
    from fuzz.program import ExtCall
    for k in range(200):
        program = generate(f"ext:{k}")
        top = [pos for pos, n in enumerate(program.scops[0]) if isinstance(n, ExtCall)]
        if externals_used(program) and top:
            break
    else:
        pytest.fail("no program calls a declared-only function at its SCoP's top level")
    pos = top[0]
    skipped = program.with_scops((program.scops[0][:pos] + program.scops[0][pos + 1:],) + program.scops[1:])
    assert "ext_trace" in _build_and_dump(tmp_path, "a", program)
    assert _build_and_dump(tmp_path, "a", program) != _build_and_dump(tmp_path, "b", skipped)


def test_empty_scops_unless_turned_off():
    from fuzz.generate import Features as F
    on = [render(generate(f"empty:{k}")) for k in range(20)]
    assert any("#pragma scop\n#pragma endscop" in t for t in on)
    assert any(re.search(r"#pragma scop\n  \w+ unused\d+;\n#pragma endscop", t) for t in on)
    assert not any("#pragma scop\n#pragma endscop" in render(generate(f"empty:{k}", F(empty=False)))
                   for k in range(20))


def test_matrix_products_unless_turned_off():
    """About three programs in ten get a product nest into a new array (`prodN`), mostly at
    a SCoP's top level; turned off, none, and the others stay what they were."""
    from fuzz.generate import Features as F
    on = [render(generate(f"products:{k}")) for k in range(30)]
    with_product = [k for k, t in enumerate(on) if re.search(r"prod\d+\[\w+( \+ \d)?\]\[\w+( \+ \d)?\] \+?= ", t)]
    assert 4 <= len(with_product) <= 16, len(with_product)
    off = [render(generate(f"products:{k}", F(products=False))) for k in range(30)]
    assert not any("prod" in t for t in off)
    assert all(on[k] == off[k] for k in range(30) if "prod" not in on[k])


def test_stencils_unless_turned_off():
    """About two programs in ten get a time loop around sweeps over new grids (`fieldN`,
    `fnextN`), at a SCoP's top level; turned off, none, and the others stay what they were."""
    from fuzz.generate import Features as F
    on = [render(generate(f"stencils:{k}")) for k in range(40)]
    with_stencil = [k for k, t in enumerate(on) if re.search(r"\bf(?:ield|next)\d*\[", t)]
    assert 3 <= len(with_stencil) <= 16, len(with_stencil)
    off = [render(generate(f"stencils:{k}", F(stencils=False))) for k in range(40)]
    assert all(on[k] == off[k] for k in range(40) if k not in with_stencil)
    assert any(re.search(r"\[\(\w + 1\) % 2\]", on[k]) for k in with_stencil) or \
        any("fnext" in on[k] for k in with_stencil)     # a Jacobi shape among them


def _stencil_alone(program: Program) -> bool:
    """Whether a SCoP of `program` updates stencil grids and nothing else."""
    def targets(nodes) -> set[str]:
        return {n.target.name for n in walk_nodes(nodes) if isinstance(n, Assign)}
    return any(scop and all(t.startswith(("field", "fnext")) for t in targets(scop)) and targets(scop)
               for scop in program.scops)


def test_stencils_always_and_in_scops_of_their_own():
    """`stencils_always` puts a stencil in every program with room for it (a program it
    would push over the instance budget keeps none), half of them in a SCoP of their own:
    the time loop around every statement, which the C target tiles along time."""
    programs = [generate(f"stencils-always:{k}", Features(stencils_always=True)) for k in range(30)]
    with_stencil = [p for p in programs if any(a.name.startswith("field") for a in p.arrays)]
    alone = [p for p in with_stencil if _stencil_alone(p)]
    assert len(with_stencil) >= 15, len(with_stencil)
    assert 0.25 * len(with_stencil) <= len(alone) <= 0.75 * len(with_stencil), (len(alone), len(with_stencil))


_CONDITIONING = r"""
#include <math.h>
#include <stdio.h>
int main(void)
{
  double x = %s, y;
  for (int k = 0; k < 40; k++)
    x = x * 2.3 + 0.1;
  y = %s;
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: y\n%%0.17g\nend   dump: y\n==END   DUMP_ARRAYS==\n", y);
  return 0;
}
"""


@pytest.mark.skipif(__import__("platform").machine() != "x86_64", reason="the check builds with the x87's precision")
@pytest.mark.parametrize("start, result, expected", [
    ("0.3", "sin(x)", True),         # x near 1e14: its last bits decide the sine
    ("0.3", "x / 1e14", False),      # the same rounding errors, well within the tolerance
], ids=["sine-of-a-huge-value", "scaled"])
def test_ill_conditioned_results_are_told_apart(start, result, expected, tmp_path):
    """A mismatch under --reductions is put down to the program, not to ppcg-py, only where
    the original's own results move beyond the tolerance with its rounding alone changed."""
    from fuzz.runner import _ill_conditioned
    from ppcg_py.verify.harness import VerifyConfig
    source = tmp_path / "p.c"
    source.write_text(_CONDITIONING % (start, result))
    verify_dir = tmp_path / "verify"
    verify_dir.mkdir()
    subprocess.run(["gcc", "-O1", str(source), "-o", str(verify_dir / "reference"), "-lm"], check=True)
    reference = subprocess.run([str(verify_dir / "reference")], capture_output=True, text=True, check=True)
    (verify_dir / "reference.stderr").write_text(reference.stderr)
    assert _ill_conditioned(VerifyConfig(source=source, data_type="double"), verify_dir) is expected


def test_stencil_programs_are_tiled_along_time_more_often():
    """A program with a stencil gets `--time-tiles=always` in eight in ten of its C cases
    and `--hybrid` in six in ten of its CUDA ones (a quarter and four in ten otherwise)."""
    cases = [make_case(f"stencil-options:{k}", Features(stencils_always=True), target)
             for k in range(60) for target in ("c", "cuda")]
    stencil = [(p, o) for p, o in cases if any(a.name.startswith("field") for a in p.arrays)]
    c_cases = [o for _, o in stencil if "--target=c" in o]
    cuda_cases = [o for _, o in stencil if "--target=c" not in o]
    assert sum("--time-tiles=always" in o for o in c_cases) >= 0.6 * len(c_cases)
    assert sum("--hybrid" in o for o in cuda_cases) >= 0.4 * len(cuda_cases)
