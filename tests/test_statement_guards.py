"""Where a statement that runs at one value of an inner loop is printed (issue 23).

PPCG prints syrk's and gemm's `C[i][j] *= beta` (it runs at k = 0 only) before the
loop over k under `if (c2 == 0)`, and that loop is the plain update. isl does the
same unless `ast_build_group_coscheduled` is on, which keeps instances that share a
schedule point in one place, here inside the loop over k under a guard on k. The
option is needed only above kernel marks (a launch runs every instance of its kernel
at its host values, so a mark generated twice runs them twice):
`codegen.ast.ast_from_tree` turns it on there only, but it stays on inside kernels
too (see GROUPED_IN_KERNELS), so in a kernel the schedule itself puts the statements
apart: the point loops after the thread-mapped ones are sunk into the statements'
sequence (`schedule.distribute.statements_apart`). On the C target the point loops
are reordered to `i, k, j`, which interleaves the two statements along j: there the
innermost loop is distributed over them (`schedule.distribute.distributed`).
"""
from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import islpy as isl
import pytest

from ppcg_py.codegen.ast import ast_from_tree
from ppcg_py.verify.harness import VerifyConfig, generated_files, run_ppcg, verify

from polybench_cases import POLYBENCH_C, kernel_config, kernel_source

# S_1 (every i) and S_0[0] share the host value c0 = 0; below the mark S_1 runs first.
# Without grouping isl generates the mark once for S_1 and again in a loop for S_0.
SPLIT_LAUNCH = (
    '{ domain: "[n] -> { S_0[i] : 0 <= i < n; S_1[i] : 0 <= i < n }", '
    'child: { schedule: "[n] -> [{ S_1[i] -> [(0)]; S_0[i] -> [(i)] }]", '
    'child: { mark: "kernel0", '
    'child: { sequence: [ { filter: "[n] -> { S_1[i] }", child: { schedule: "[n] -> [{ S_1[i] -> [(i)] }]" } }, '
    '{ filter: "[n] -> { S_0[i] }" } ] } } } }'
)

# gemm's shape below a mark: S_0[i] (C[i] *= beta) at k = 0, before S_1[i, k] (C[i] += ...).
SCALE_THEN_UPDATE = (
    '{ domain: "[n, m] -> { S_0[i] : 0 <= i < n; S_1[i, k] : 0 <= i < n and 0 <= k < m }", '
    'child: { schedule: "[n, m] -> [{ S_0[i] -> [(i)]; S_1[i, k] -> [(i)] }]", '
    'child: { mark: "kernel0", '
    'child: { schedule: "[n, m] -> [{ S_0[i] -> [(0)]; S_1[i, k] -> [(k)] }]", '
    'child: { sequence: [ { filter: "[n, m] -> { S_0[i] }" }, { filter: "[n, m] -> { S_1[i, k] }" } ] } } } } }'
)


def _scheduled(ctx: isl.Context, tree: str) -> tuple[SimpleNamespace, isl.Schedule]:
    """What `ast_from_tree` reads of a ScheduledScop, for a hand-written tree."""
    schedule = isl.Schedule.read_from_str(ctx, tree)
    scop = SimpleNamespace(ctx=ctx, context=schedule.get_domain().params())
    names = SimpleNamespace(iterators=lambda n: [f"c{k}" for k in range(n)])
    return SimpleNamespace(scop=scop, names=names), schedule


def _printed(tree: str, launches: bool) -> str:
    ctx = isl.Context()
    scheduled, schedule = _scheduled(ctx, tree)
    root = ast_from_tree(scheduled, schedule, lambda node, _build: node, launches=launches)
    return root.to_C_str()


def test_isl_splits_a_launch_without_grouping():
    """The isl behaviour that makes the host code group coscheduled instances."""
    for grouped, marks in ((0, 2), (1, 1)):
        ctx = isl.Context()
        ctx.set_ast_build_group_coscheduled(grouped)
        schedule = isl.Schedule.read_from_str(ctx, SPLIT_LAUNCH)
        text = isl.AstBuild.from_context(schedule.get_domain().params()).node_from_schedule(schedule).to_C_str()
        assert text.count("// kernel0") == marks, text


def test_a_launch_stays_in_one_place():
    text = _printed(SPLIT_LAUNCH, launches=True)
    assert text.count("// kernel0") == 1, text


GROUPED_IN_KERNELS = ("ast_build_group_coscheduled stays on inside kernels: turned off there, it gave "
                      "fuzz 2511:475 a loop bound that ran for ever (regression kernel_bound_without_grouping)")


@pytest.mark.parametrize("launches", [pytest.param(True, marks=pytest.mark.xfail(reason=GROUPED_IN_KERNELS,
                                                                                  strict=True)), False],
                         ids=["below a kernel mark", "without launches"])
def test_statement_at_one_inner_value_is_printed_before_the_loop(launches):
    text = _printed(SCALE_THEN_UPDATE, launches)
    bodies = innermost_loop_bodies(text)
    assert bodies and all("S_1" in body and "if" not in body and "S_0" not in body for body in bodies), text


def test_ast_build_option_is_restored():
    ctx = isl.Context()
    scheduled, schedule = _scheduled(ctx, SPLIT_LAUNCH)
    ast_from_tree(scheduled, schedule, lambda node, _build: node, launches=True)
    assert ctx.get_ast_build_group_coscheduled() == 0


def innermost_loop_bodies(text: str) -> list[str]:
    """The bodies of the `for` loops of C text (isl's or ppcg-py's) that hold no other loop."""
    bodies = []
    for match in re.finditer(r"\bfor \(", text):
        start = _after_parenthesis(text, match.end() - 1)
        body = _statement(text, start)
        if not re.search(r"\bfor \(", body):
            bodies.append(body)
    return bodies


def _after_parenthesis(text: str, open_at: int) -> int:
    depth = 0
    for k in range(open_at, len(text)):
        depth += {"(": 1, ")": -1}.get(text[k], 0)
        if depth == 0:
            return k + 1
    raise AssertionError("unbalanced parentheses")


def _statement(text: str, start: int) -> str:
    """The statement that starts at or after `start`: a braced block, or up to its `;`
    (isl prints a single-statement body without braces)."""
    start += len(text[start:]) - len(text[start:].lstrip())
    if text[start] != "{":
        if text.startswith(("for ", "if "), start):
            end = _after_parenthesis(text, text.index("(", start))
            return text[start:end] + _statement(text, end)
        return text[start:text.index(";", start) + 1]
    depth = 0
    for k in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[k], 0)
        if depth == 0:
            return text[start:k + 1]
    raise AssertionError("unbalanced braces")


def test_innermost_loop_bodies():
    text = "for (int a = 0; a < n; a++) {\n  if (a == 0)\n    x();\n  for (b = 0; b < (m); b++)\n    y(b);\n}\n"
    assert innermost_loop_bodies(text) == ["y(b);"]


# -- the generated code ---------------------------------------------------------------
def _sized(kernel: str, sizes: dict[str, int], **extra) -> VerifyConfig:
    """A PolyBench kernel at the given sizes (-DNAME=VALUE; none a multiple of 32)."""
    src = kernel_source(kernel)
    return VerifyConfig(source=src, include_dirs=(str(POLYBENCH_C.parent), str(src.parent)),
                        defines=tuple(f"{k}={v}" for k, v in sizes.items()),
                        extra_c_sources=(str(POLYBENCH_C),), **extra)


SYRK_C = ("--openmp", "--tile")


def _generated(cfg: VerifyConfig, out_dir: Path) -> str:
    proc = run_ppcg(cfg, out_dir)
    assert proc.returncode == 0, proc.stderr
    if cfg.target == "c":
        return (out_dir / f"{cfg.source.stem}.ppcg.c").read_text()
    return generated_files(cfg.source, out_dir)[1].read_text()


def test_gemm_kernel_updates_without_a_guard_in_its_innermost_loop(tmp_path):
    """The schedule puts `C *= beta` apart from the loop over k (distribute.statements_apart)."""
    text = _generated(kernel_config("gemm"), tmp_path)
    bodies = innermost_loop_bodies(text)
    updates = [body for body in bodies if "alpha" in body]
    assert updates and not any("beta" in body or "if (" in body for body in updates), text
    assert re.search(r"if \(c2 == 0\) \{\s*private_C\[0\]\[0\] \*= beta;", text), text


def test_syrk_c_updates_without_a_guard_in_its_innermost_loop(tmp_path):
    cfg = kernel_config("syrk", dataset="LARGE", ppcg_args=SYRK_C, target="c")
    text = _generated(cfg, tmp_path)
    updates = [body for body in innermost_loop_bodies(text) if "alpha" in body]
    assert updates and not any("beta" in body or "if (" in body for body in updates), text
    assert re.search(r"if \(c2 == 0\) \{[^}]*\*= beta;", text), text


@pytest.mark.parametrize("sizes", [{"M": 45, "N": 37}, {"M": 20, "N": 70}], ids=["M45-N37", "M20-N70"])
def test_syrk_c_verifies(sizes, tmp_path):
    report = verify(_sized("syrk", sizes, ppcg_args=SYRK_C, target="c", threads=(1, 2)), tmp_path)
    assert report.ok, report.summary()


@pytest.mark.parametrize("kernel, sizes", [("gemm", {"NI": 33, "NJ": 47, "NK": 65}),
                                           ("syrk", {"M": 45, "N": 37})], ids=["gemm", "syrk"])
def test_cuda_kernel_verifies(kernel, sizes, tmp_path):
    report = verify(_sized(kernel, sizes), tmp_path)
    assert report.ok, report.summary()


# -- the C target's point loops (schedule.distribute) ---------------------------------
# The point band of syrk after the intra-tile reordering: i, k, j, with S_0 (C[i][j] *= beta)
# at k = 0 and the update S_1 in a sequence under j.
POINT_BAND = (
    '{ domain: "[n, m] -> { S_0[i, j] : 0 <= i, j < n; S_1[i, k, j] : 0 <= i, j < n and 0 <= k < m }", '
    'child: { schedule: "[n, m] -> [{ S_0[i, j] -> [(i)]; S_1[i, k, j] -> [(i)] }, '
    '{ S_0[i, j] -> [(0)]; S_1[i, k, j] -> [(k)] }]", '
    'child: { schedule: "[n, m] -> [{ S_0[i, j] -> [(j)]; S_1[i, k, j] -> [(j)] }]", '
    'child: { sequence: [ { filter: "[n, m] -> { S_0[i, j] }" }, { filter: "[n, m] -> { S_1[i, k, j] }" } ] } } } }'
)
FORWARD = "[n, m] -> { S_0[i, j] -> S_1[i, k, j] }"


def _distributed(dependences: str) -> str:
    from ppcg_py.schedule.distribute import distributed

    ctx = isl.Context()
    schedule = isl.Schedule.read_from_str(ctx, POINT_BAND)
    innermost = schedule.get_root().child(0).child(0)
    node = distributed(innermost, isl.UnionMap.read_from_str(ctx, dependences))
    return isl.AstBuild.from_context(schedule.get_domain().params()).node_from_schedule(node.get_schedule()).to_C_str()


def test_innermost_point_loop_is_distributed_to_take_a_statement_out():
    text = _distributed(FORWARD)
    bodies = innermost_loop_bodies(text)
    assert all(("S_0" in body) != ("S_1" in body) and "if" not in body for body in bodies), text


def test_distribution_keeps_a_dependence_from_a_later_statement_to_an_earlier_one():
    """S_1[i, 0, j] before S_0[i, j + 1]: running every S_0 first would break it."""
    text = _distributed(f"{FORWARD[:-1]}; S_1[i, 0, j] -> S_0[i, j + 1] }}")
    assert any("S_0" in body and "S_1" in body for body in innermost_loop_bodies(text)), text


def test_no_distribution_where_no_statement_leaves_a_loop():
    """S_0 runs over several values of the outer point loops too: distributing j would
    only split the loop."""
    from ppcg_py.schedule.distribute import distributed

    ctx = isl.Context()
    tree = POINT_BAND.replace("S_0[i, j] -> [(0)]", "S_0[i, j] -> [(j)]")
    innermost = isl.Schedule.read_from_str(ctx, tree).get_root().child(0).child(0)
    node = distributed(innermost, isl.UnionMap.read_from_str(ctx, FORWARD))
    assert node.get_type() == isl.schedule_node_type.band


def test_gemm_c_updates_without_a_guard_in_its_innermost_loop(tmp_path):
    cfg = kernel_config("gemm", dataset="LARGE", ppcg_args=SYRK_C, target="c")
    text = _generated(cfg, tmp_path)
    updates = [body for body in innermost_loop_bodies(text) if "alpha" in body]
    assert updates and not any("beta" in body or "if (" in body for body in updates), text


@pytest.mark.parametrize("sizes", [{"NI": 33, "NJ": 47, "NK": 65}, {"NI": 20, "NJ": 25, "NK": 30}],
                         ids=["33x47x65", "20x25x30"])
def test_gemm_c_verifies(sizes, tmp_path):
    report = verify(_sized("gemm", sizes, ppcg_args=SYRK_C, target="c", threads=(1, 2)), tmp_path)
    assert report.ok, report.summary()


# -- a kernel's point band (schedule.distribute.statements_apart) ---------------------
# gemm's point band in a kernel: the thread-mapped member (j), then k, which each thread
# runs in turn; S_0 (C[i][j] *= beta) at k = 0 and S_1 in a sequence below.
KERNEL_POINTS = (
    '{ domain: "[n, m] -> { S_0[i, j] : 0 <= i, j < n; S_1[i, k, j] : 0 <= i, j < n and 0 <= k < m }", '
    'child: { schedule: "[n, m] -> [{ S_0[i, j] -> [(i)]; S_1[i, k, j] -> [(i)] }]", '
    'child: { schedule: "[n, m] -> [{ S_0[i, j] -> [(j)]; S_1[i, k, j] -> [(j)] }, '
    '{ S_0[i, j] -> [(0)]; S_1[i, k, j] -> [(k)] }]", permutable: 1, coincident: [ 1, 0 ], '
    'child: { sequence: [ { filter: "[n, m] -> { S_0[i, j] }" }, { filter: "[n, m] -> { S_1[i, k, j] }" } ] } } } }'
)


def _apart(dependences: str, first: int = 1) -> tuple[isl.ScheduleNode, str]:
    from ppcg_py.schedule.distribute import statements_apart

    ctx = isl.Context()
    points = isl.Schedule.read_from_str(ctx, KERNEL_POINTS).get_root().child(0).child(0)
    node = statements_apart(points, first, isl.UnionMap.read_from_str(ctx, dependences), isl.ast_loop_type.atomic)
    schedule = node.get_schedule()
    return node, isl.AstBuild.from_context(schedule.get_domain().params()).node_from_schedule(schedule).to_C_str()


def test_a_kernel_statement_at_one_value_of_a_thread_loop_runs_before_it():
    node, text = _apart("[n, m] -> { S_0[i, j] -> S_1[i, k, j] }")
    assert node.band_n_member() == 1 and node.child(0).get_type() == isl.schedule_node_type.sequence
    bodies = innermost_loop_bodies(text)
    assert bodies and all("S_1" in body and "S_0" not in body and "if" not in body for body in bodies), text
    sunk = node.child(0).child(1).child(0)
    assert sunk.band_member_get_ast_loop_type(0) == isl.ast_loop_type.atomic


@pytest.mark.parametrize("dependences, first", [
    ("[n, m] -> { S_1[i, 0, j] -> S_0[i, j] }", 1),     # a later statement's instance feeds S_0
    ("[n, m] -> { S_0[i, j] -> S_1[i, k, j] }", 2),     # no member after the thread-mapped ones
], ids=["backward dependence", "all members on threads"])
def test_a_kernel_point_band_stays_whole(dependences, first):
    node, _ = _apart(dependences, first)
    assert node.band_n_member() == 2
