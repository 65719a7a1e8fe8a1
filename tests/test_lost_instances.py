"""The check that isl's AST covers the SCoP (codegen/ast.py: `lost_instances`), on every
target: a kernel's leaves count over all its threads, and an AST that loses instances
makes the compilation fall back (stages.py, driver.py) rather than print wrong code."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import islpy as isl
import pytest

from ppcg_py.cli import main
from ppcg_py.codegen import ast as ast_module
from ppcg_py.codegen import c_target

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "matmul.c"


def _scop(ctx: isl.Context) -> SimpleNamespace:
    return SimpleNamespace(domain=isl.UnionSet("[n] -> { S[i] : 0 <= i < n }", context=ctx),
                           context=isl.Set("[n] -> { : n >= 0 }", context=ctx))


@pytest.mark.parametrize("leaves, lost", [
    # one thread per instance, two blocks of four threads: all of them
    (["[n, b0, t0] -> { S[i] : i = 4b0 + t0 and 0 <= t0 < 4 and 0 <= i < n }"], False),
    # the last thread of every block never runs
    (["[n, b0, t0] -> { S[i] : i = 4b0 + t0 and 0 <= t0 < 3 and 0 <= i < n }"], True),
    # host leaves with the SCoP's parameters only
    (["[n] -> { S[i] : 0 <= i < n - 1 }", "[n] -> { S[i] : i = n - 1 }"], False),
    (["[n] -> { S[i] : 0 <= i < n - 1 }"], True),
])
def test_lost_instances_counts_a_kernel_leaf_over_its_threads(leaves, lost):
    ctx = isl.Context()
    reached = [isl.UnionSet(leaf, context=ctx) for leaf in leaves]
    assert ast_module.lost_instances(_scop(ctx), reached) == lost


@pytest.mark.parametrize("target", ["cuda", "opencl", "c"])
def test_an_ast_that_loses_instances_ends_with_the_scop_on_the_host(target, monkeypatch, tmp_path, capsys):
    """Every AST made said to lose instances: the driver tries the original loop order,
    then leaves the SCoP on the host as its C code, with a warning each time."""
    monkeypatch.setattr(ast_module, "lost_instances", lambda scop, reached, kernels=(): True)
    monkeypatch.setattr(c_target, "lost_instances", lambda scop, reached, kernels=(): True)
    status = main([f"--target={target}", "--output-dir", str(tmp_path), str(EXAMPLE)])
    err = capsys.readouterr().err
    assert status == 0, err
    assert "Traceback" not in err
    assert "isl's AST generator left statement instances out" in err
    assert "compiling again with that SCoP left on the host as its original C code" in err
    texts = "".join(p.read_text() for p in tmp_path.iterdir())
    assert "this SCoP keeps its original C code" in texts or "this SCoP runs on the host, as its original C code" \
        in texts


def test_a_kernels_leaves_are_checked_thread_by_thread(monkeypatch, tmp_path):
    """The check as the AST stage makes it, on jacobi-2d's kernels (isolated whole tiles,
    `--warp-shuffles`): all leaves cover every block's and thread's instances; without one
    leaf, or with one leaf that thread x = 3 never reaches, instances are lost."""
    calls = []
    real = ast_module.lost_instances

    def recorded(scop, reached, kernels=()):
        calls.append((scop, list(reached), kernels))
        return real(scop, reached, kernels)

    monkeypatch.setattr(ast_module, "lost_instances", recorded)
    source = Path(__file__).resolve().parents[1] / "polybench" / "stencils" / "jacobi-2d" / "jacobi-2d.c"
    utilities = source.parents[2] / "utilities"
    assert main(["--timeout", "0", "--warp-shuffles", "--no-host-path", "-I", str(utilities), "-d", str(tmp_path), str(source)]) == 0
    scop, reached, kernels = calls[0]
    assert kernels and not real(scop, reached, kernels)
    in_kernel = [k for k, part in enumerate(reached) if part.get_space().find_dim_by_name(isl.dim_type.param, "t1") >= 0]
    assert len(in_kernel) > 2
    dropped = reached[:in_kernel[-1]] + reached[in_kernel[-1] + 1:]
    assert real(scop, dropped, kernels)
    part = reached[in_kernel[0]]
    not_x3 = isl.Set.read_from_str(part.get_ctx(), "[t1] -> { : t1 != 3 }")
    cut = reached[:in_kernel[0]] + [part.intersect_params(not_x3.align_params(part.get_space()))] \
        + reached[in_kernel[0] + 1:]
    assert real(scop, cut, kernels)


@pytest.mark.parametrize("options, builds", [(("--no-private-memory",), 1), ((), 2)])
def test_a_tree_that_unrolls_no_loop_is_built_once(options, builds, monkeypatch, tmp_path):
    """The AST stage's first build runs under an operation bound, and a second one, with
    no loop unrolled, follows where the first runs out or loses instances. A tree that
    unrolls nothing would be built the same way again: it is built once, unbounded.
    matmul's copies into registers are unrolled, and without them nothing is."""
    runs = []
    real = ast_module._AstBuilder.run

    def counted(self, schedule):
        runs.append(schedule)
        return real(self, schedule)

    def out_of_operations(ctx, limit, work):
        work()
        raise ast_module.OutOfOperations(limit)

    monkeypatch.setattr(ast_module._AstBuilder, "run", counted)
    monkeypatch.setattr(ast_module, "bounded", out_of_operations)
    assert main(["--timeout", "0", *options, "-d", str(tmp_path), str(EXAMPLE)]) == 0
    assert len(runs) == builds
