"""Parsing PolyBench array dumps and comparing them."""

import math

import pytest

from ppcg_py.verify.dump import DumpError, compare_dumps, parse_dump, tolerance_for

# As PolyBench prints it: a space after every value, a newline every 20 values.
DUMP = (
    "some timing output\n"
    "==BEGIN DUMP_ARRAYS==\n"
    "begin dump: C\n"
    "0.00 1.50 -2.25 nan -nan inf -inf 3 7 8 9 10 11 12 13 14 15 16 17 18 \n"
    "19.00 20.00 \n"
    "end   dump: C\n"
    "begin dump: x\n"
    "42 \n"
    "end   dump: x\n"
    "==END   DUMP_ARRAYS==\n"
    "trailing text\n"
)


def test_parse_polybench_format():
    arrays = parse_dump(DUMP)
    assert list(arrays) == ["C", "x"]
    c = arrays["C"]
    assert len(c) == 22
    assert c[:3] == [0.0, 1.5, -2.25]
    assert math.isnan(c[3]) and math.isnan(c[4])
    assert c[5:7] == [math.inf, -math.inf]
    assert arrays["x"] == [42.0]


def test_empty_region_has_no_arrays():
    assert parse_dump("==BEGIN DUMP_ARRAYS==\n==END   DUMP_ARRAYS==\n") == {}


@pytest.mark.parametrize(
    "text",
    [
        "no dump at all",
        "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n1 2\n",  # never ends
        "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n1\nend   dump: B\n==END   DUMP_ARRAYS==\n",
        "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n1 x\nend   dump: A\n==END   DUMP_ARRAYS==\n",
        "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n1\nend   dump: A\nbegin dump: A\n2\n"
        "end   dump: A\n==END   DUMP_ARRAYS==\n",
    ],
)
def test_malformed_dumps_are_rejected(text):
    with pytest.raises(DumpError):
        parse_dump(text)


def test_equal_dumps_and_values_within_tolerance():
    ref = {"A": [1.0, 100.0, 0.0, math.nan, math.inf]}
    assert compare_dumps(ref, ref, rtol=0, atol=0) == []
    close = {"A": [1.0 + 1e-10, 100.0 * (1 + 5e-10), 5e-10, math.nan, math.inf]}
    assert compare_dumps(ref, close, rtol=1e-9, atol=1e-9) == []


def test_value_mismatch_names_array_and_flat_index():
    problems = compare_dumps({"A": [1.0, 2.0]}, {"A": [1.0, 2.5]}, rtol=1e-9, atol=1e-9)
    assert problems == ["A[1]: expected 2.0, got 2.5"]


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_special_values_where_reference_is_finite_mismatch(bad):
    # Huge tolerances must not let NaN (cudaMalloc poison) or infinity through.
    assert compare_dumps({"A": [1.0]}, {"A": [bad]}, rtol=1e9, atol=1e9)


def test_special_values_in_the_reference_must_be_reproduced():
    assert compare_dumps({"A": [math.nan]}, {"A": [0.0]}, rtol=1, atol=1)
    assert compare_dumps({"A": [math.inf]}, {"A": [-math.inf]}, rtol=1, atol=1)


def test_missing_extra_and_resized_arrays():
    problems = compare_dumps(
        {"A": [1.0], "B": [1.0, 2.0]}, {"B": [1.0], "C": [3.0]}, rtol=0, atol=0
    )
    assert problems == [
        "array A: missing",
        "array C: not in the reference",
        "array B: 1 values, reference has 2",
    ]


def test_report_is_capped_at_ten_values():
    problems = compare_dumps({"A": [0.0] * 25}, {"A": [1.0] * 25}, rtol=0, atol=0)
    assert len(problems) == 11
    assert problems[9] == "A[9]: expected 0.0, got 1.0"
    assert problems[10] == "... and 15 more mismatching values"


def test_tolerances_per_data_type():
    assert tolerance_for("double") == (1e-9, 1e-9)
    assert tolerance_for("float") == (1e-4, 1e-5)
    rtol, atol = tolerance_for("int")
    assert compare_dumps({"A": [7.0]}, {"A": [8.0]}, rtol=rtol, atol=atol)
    assert compare_dumps({"A": [7.0]}, {"A": [7.0]}, rtol=rtol, atol=atol) == []
    with pytest.raises(ValueError):
        tolerance_for("half")
