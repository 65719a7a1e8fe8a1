"""--dump-after=STAGE prints what each stage of the pipeline made (driver.STAGES)."""
from __future__ import annotations

from pathlib import Path

import pytest

from ppcg_py.cli import main
from ppcg_py.driver import STAGE_NAMES

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "matmul.c"


def _dump_after(stage: str, tmp_path, capsys) -> str:
    # PPCG's sizes, which the placements below assume (150 x 130 launches fewer threads
    # than a GPU holds, so the sizes chosen for it would differ)
    assert main([f"--dump-after={stage}", "--sizes", "ppcg", "--output-dir", str(tmp_path), str(EXAMPLE)]) == 0
    return capsys.readouterr().out


def test_the_stages_in_order():
    assert STAGE_NAMES == ("extract", "schedule", "memory", "ast", "print")


def test_extract_shows_the_statements_and_their_accesses(tmp_path, capsys):
    out = _dump_after("extract", tmp_path, capsys)
    assert out.startswith("# SCoP of matmul (lines 26-38)\n")
    assert "S_1 (line 31): [ni, nj, nk] -> { S_1[i, j, k] : 0 <= i < ni and 0 <= j < nj and 0 <= k < nk }" in out
    # C[i][j] += ...: one reference, read and written
    assert "  read+write: [ni, nj, nk] -> { [S_1[i, j, k] -> ref_1[]] -> C[i, j] : 0 <= i < ni and 0 <= j < nj and 0 <= k < nk }" \
        in out
    assert "  read: [ni, nj, nk] -> { [S_1[i, j, k] -> ref_3[]] -> B[k, j] : 0 <= i < ni and 0 <= j < nj and 0 <= k < nk }" in out


def test_schedule_shows_the_final_tree_with_its_kernels_marked(tmp_path, capsys):
    out = _dump_after("schedule", tmp_path, capsys)
    assert out.startswith("# final schedule of matmul (lines 26-38)\n{ domain: ")
    assert 'mark: "kernel0"' in out and 'mark: "kernel1"' in out


def test_memory_shows_copies_and_each_group_placement(tmp_path, capsys):
    out = _dump_after("memory", tmp_path, capsys).splitlines()
    assert out[0] == "# memory of matmul (lines 26-38)"
    assert "array A: copy in yes [0 .. ppcg_min(149, ni - 1)][0 .. ppcg_min(89, nk - 1)], copy out no" in out
    assert "kernel0: shared memory 8192 bytes" in out
    assert "  group A: shared shared_A[32][32] at depth 3 (reuse)" in out
    assert "  group C: private private_C[1][2] at depth 2 (reuse, one element set per thread)" in out
    tree = "\n".join(out[out.index("# schedule tree with copies, syncs and transfers"):])
    for statement in ("to_device_A[]", "from_device_C[]", "kernel0_read_shared_A[", "kernel0_write_private_C[",
                      "kernel0_sync_0[]", "kernel1_sync_0[]"):
        assert statement in tree, statement
    assert 'mark: "kernel0"' in tree and "extension:" in tree


def test_ast_shows_one_ast_per_scop_with_its_kernels_in_place(tmp_path, capsys):
    out = _dump_after("ast", tmp_path, capsys)
    assert out.startswith("# AST of matmul (lines 26-38)\n")
    assert out.count("// kernel0") == 1 and out.count("// kernel1") == 1
    assert "kernel0_read_shared_A(" in out and "kernel0_sync_0()" in out and "to_device_A()" in out


def test_print_shows_each_file_after_a_header(tmp_path, capsys):
    out = _dump_after("print", tmp_path, capsys)
    headers = [line for line in out.splitlines() if line.startswith("# file ")]
    assert headers == ["# file matmul_host.cu", "# file matmul_kernel.cu", "# file matmul_kernel.hu"]
    kernel = out.split("# file matmul_kernel.cu\n")[1].split("\n# file matmul_kernel.hu\n")[0]
    assert kernel == (tmp_path / "matmul_kernel.cu").read_text()
    assert "__global__" in kernel and "kernel0(" in kernel


def test_several_stages_print_in_pipeline_order(tmp_path, capsys):
    assert main(["--dump-after=print", "--dump-after=extract", "--output-dir", str(tmp_path), str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    assert out.index("# SCoP of matmul") < out.index("# file matmul_host.cu")


def test_an_unknown_stage_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--dump-after=tiling", "--output-dir", str(tmp_path), str(EXAMPLE)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("ppcg-py: error: argument --dump-after: invalid choice: 'tiling'")
    assert list(tmp_path.iterdir()) == []


def test_the_help_names_every_stage(capsys):
    from ppcg_py.driver import STAGE_NAMES
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"({', '.join(STAGE_NAMES)})" in text
