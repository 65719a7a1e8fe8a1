"""The copy boxes of memory/device_arrays.py (and the holes of transfers.py): exact when isl finds them within the bound,
wider but still covering every element when it does not."""
from __future__ import annotations

import islpy as isl
import pytest

from ppcg_py.extract.model import Array
from ppcg_py.isl_context import new_context
from ppcg_py.memory import device_arrays, transfers

# an array A[n][m]; the even rows below k are written
_CONTEXT = "[n, m, k] -> { : n >= 1 and m >= 1 and 0 <= k <= n }"
_WRITTEN = "[n, m, k] -> { A[i0, i1] : exists (e : i0 = 2e) and 0 <= i0 < k and 1 <= i1 < m }"


def _array(ctx: isl.Context) -> Array:
    sizes = tuple(isl.PwAff(f"[n, m, k] -> {{ [({p})] }}", context=ctx) for p in ("n", "m"))
    return Array("A", "double", sizes, (True, True))


def _box_set(box: device_arrays.CopyBox, extent: isl.Set) -> isl.Set:
    """The elements within the box's bounds."""
    result = extent
    ls = isl.LocalSpace.from_space(extent.get_space())
    for k, (low, high) in enumerate(box.bounds):
        var = isl.PwAff.var_on_domain(ls, isl.dim_type.set, k)
        grow = lambda bound: bound.add_dims(isl.dim_type.in_, extent.dim(isl.dim_type.set))  # noqa: E731
        result = result.intersect(var.ge_set(grow(low).set_tuple_id(isl.dim_type.in_, extent.get_tuple_id())))
        result = result.intersect(var.le_set(grow(high).set_tuple_id(isl.dim_type.in_, extent.get_tuple_id())))
    return result


def _attempts_failing(monkeypatch, failures: int) -> None:
    """Make the first `failures` bounded attempts give up, as if isl ran past the bound."""
    real, calls = transfers.refinement, []

    def bounded(ctx, limit, compute):
        calls.append(limit)
        return None if len(calls) <= failures else real(ctx, limit, compute)
    for module in (device_arrays, transfers):
        monkeypatch.setattr(module, "refinement", bounded)


@pytest.mark.parametrize("failures, expected", [
    # exact: up to the last even row below k
    (0, "{ A[i0, i1] : k >= 1 and 0 <= i0 <= 2 * floor((k - 1) / 2) and 1 <= i1 < m }"),
    # the box of the div-free hull: up to row k - 1
    (1, "{ A[i0, i1] : k >= 1 and 0 <= i0 < k and 1 <= i1 < m }"),
    # the whole array, from its sizes
    (2, "{ A[i0, i1] : 0 <= i0 < n and 0 <= i1 < m }"),
])
def test_each_fallback_box_covers_the_written_elements(monkeypatch, failures, expected):
    ctx = new_context()
    array, context = _array(ctx), isl.Set(_CONTEXT, context=ctx)
    extent = device_arrays.extent_set(array, context)
    written = isl.Set(_WRITTEN, context=ctx).intersect_params(context)
    _attempts_failing(monkeypatch, failures)
    box = device_arrays.copy_box(written, extent, array)
    covered = _box_set(box, extent)
    assert written.is_subset(covered) and covered.is_subset(extent)
    where_written = written.params()     # outside it (k = 0) the box does not matter
    assert covered.intersect_params(where_written).is_equal(
        isl.Set(f"[n, m, k] -> {expected}", context=ctx).intersect_params(where_written))


def test_holes_are_the_whole_box_when_isl_cannot_tell(monkeypatch):
    ctx = new_context()
    box = isl.Set("[n] -> { A[i] : 0 <= i < n }", context=ctx)
    written = isl.Set("[n] -> { A[i] : 0 <= i < n and i % 2 = 0 }", context=ctx)
    assert transfers._holes(box, box) is None
    assert transfers._holes(box, written).is_equal(isl.Set("[n] -> { A[i] : 0 <= i < n and i % 2 = 1 }",
                                                            context=ctx))
    _attempts_failing(monkeypatch, 1)
    assert transfers._holes(box, written).is_equal(box)
