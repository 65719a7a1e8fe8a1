"""The fuzzer's flat arrays (generate._with_flat, render.py): matrices passed as pointers
to their first element and addressed as flat sequences, their row lengths parameters,
which ppcg-py must read back as rows (extract/flat_arrays.py); such programs compile and
verify against gcc through the fuzzer's own runner on every target."""
from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path

import pytest
from fuzz.generate import Features, generate
from fuzz.options import random_options
from fuzz.render import render
from fuzz.runner import ROOT, run_case

CPU_LIMIT_S = 60
COMPILER_ROOT = Path(os.environ.get("FUZZ_ROOT", ROOT))


def flat_case(k: int):
    """The k-th seed (of the first 200) whose program has a flat array."""
    found = 0
    for n in range(200):
        seed = f"flat:{n}"
        program = generate(seed, Features())
        if program.flat:
            if found == k:
                return seed, program
            found += 1
    raise AssertionError("fewer flat programs than asked for")


def test_flat_arrays_are_pointers_addressed_by_rows():
    _, program = flat_case(0)
    text = render(program)
    for name in program.flat:
        array = next(a for a in program.arrays if a.name == name)
        assert re.search(rf"\b{array.ctype} \*{name}\b", text)
        assert f"&{name}{'[0]' * array.rank}" in text                    # main passes the first element
        assert re.search(rf"\b{name}\[\(+[^]]*\* {name}_ld1 \+", text)   # rows of {name}_ld1 elements
    assert not replace(program, flat=()).flat and "_ld1" not in render(replace(program, flat=()))


def test_without_flat_nothing_is_flat():
    assert not any(generate(f"flat:{n}", Features(flat=False)).flat for n in range(40))


@pytest.mark.parametrize("k, target", [(0, "cuda"), (1, "c"), (2, "opencl"), (3, None)])
def test_flat_programs_verify(k, target, tmp_path):
    seed, program = flat_case(k)
    args = random_options(seed, program, target)
    outcome = run_case(render(program), program, args, tmp_path, use_nvcc=False, cpu_limit=CPU_LIMIT_S,
                       root=COMPILER_ROOT)
    assert outcome.verdict in ("pass", "rejection"), \
        f"{seed} {' '.join(args)}: {outcome.verdict} {outcome.detail}\n{outcome.message[:3000]}"
