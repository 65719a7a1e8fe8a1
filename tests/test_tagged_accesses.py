"""Tagged accesses: every reference has a name of its own, as in PPCG, and later
stages refer to references only by that name (never by Python object identity)."""
from __future__ import annotations

import copy
import pickle
from pathlib import Path

import islpy as isl
from pycparser import c_ast

from ppcg_py.codegen.printer import c_lines
from ppcg_py.codegen.statements import instance
from ppcg_py.extract import extract_scops
from ppcg_py.extract.model import Reference
from ppcg_py.isl_context import maps_of, new_context
from ppcg_py.memory import plan_memory
from ppcg_py.options import Options
from ppcg_py.schedule.gpu import schedule_scop

ROOT = Path(__file__).resolve().parent.parent

SAME_ELEMENT_TWICE = """
void f(int n, double A[100], double B[100]) {
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = B[i] * B[i] + A[i];
#pragma endscop
}
"""


def _scop(tmp_path, text: str):
    src = tmp_path / "input.c"
    src.write_text(text)
    return extract_scops(str(src), new_context())[0]


def _references(node: c_ast.Node) -> list[str]:
    found = [node.tag] if isinstance(node, Reference) else []
    for _, child in node.children():
        found += _references(child)
    return found


def test_every_access_has_its_own_tag_and_tagged_relation(tmp_path):
    scop = _scop(tmp_path, SAME_ELEMENT_TWICE)
    (stmt,) = scop.statements
    tags = [acc.tag for acc in stmt.accesses]
    assert tags == ["ref_0", "ref_1", "ref_2", "ref_3"]   # the write A[i], then B[i], B[i], A[i]
    first, second = (acc for acc in stmt.accesses if acc.array == "B")
    assert first.index.is_equal(second.index)              # the same elements ...
    one, two = first.tagged_index(), second.tagged_index()
    assert not one.get_space().is_equal(two.get_space())   # ... told apart by their tags
    assert isl.UnionMap.from_map(one).intersect(isl.UnionMap.from_map(two)).is_empty()
    assert one.domain().is_wrapping()
    assert one.domain().unwrap().get_tuple_name(isl.dim_type.out) == first.tag
    assert one.domain().unwrap().domain().is_equal(stmt.domain)
    assert str(one.range().get_tuple_name()) == "B"


def test_tagged_access_unions(tmp_path):
    scop = _scop(tmp_path, SAME_ELEMENT_TWICE)
    reads = scop.access_union(reads=True, tagged=True)
    writes = scop.access_union(reads=False, tagged=True)
    read_tags = {m.domain().unwrap().get_tuple_name(isl.dim_type.out) for m in maps_of(reads)}
    write_tags = {m.domain().unwrap().get_tuple_name(isl.dim_type.out) for m in maps_of(writes)}
    assert read_tags == {"ref_1", "ref_2", "ref_3"}
    assert write_tags == {"ref_0"}
    assert reads.domain_factor_domain().is_equal(scop.access_union(reads=True))
    assert writes.domain_factor_domain().is_equal(scop.access_union(reads=False))


def test_statement_bodies_name_references_by_tag(tmp_path):
    scop = _scop(tmp_path, SAME_ELEMENT_TWICE)
    (stmt,) = scop.statements
    assert _references(stmt.body) == [acc.tag for acc in stmt.accesses]
    names = {acc.tag: c_ast.ID(f"{acc.array}_{acc.tag}") for acc in stmt.accesses}

    def printed(body):
        return c_lines([instance(body, names, {})])
    assert printed(stmt.body) == ["A_ref_0 = B_ref_1 * B_ref_2 + A_ref_3;"]
    # a copy of the model prints the same: nothing depends on object identity
    assert printed(copy.deepcopy(stmt.body)) == printed(stmt.body)
    assert printed(pickle.loads(pickle.dumps(stmt.body))) == printed(stmt.body)


def test_reference_groups_are_sets_of_tags():
    src = ROOT / "examples" / "matmul.c"
    scop = extract_scops(str(src), new_context())[0]
    scheduled = schedule_scop(scop, Options())
    plan = plan_memory(scheduled, Options())
    tags = {acc.tag for stmt in scop.statements for acc in stmt.accesses}
    grouped = [tag for kernel in plan.kernels for group in kernel.groups for tag in group.refs]
    assert grouped and set(grouped) <= tags
    for kernel in plan.kernels:                     # kernels are found by name, not by position
        assert plan.kernel(kernel.kernel) is kernel
    for kernel in plan.kernels:
        for group in kernel.groups:
            assert {scop.access(tag).array for tag in group.refs} == {group.array}
