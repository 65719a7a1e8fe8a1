"""Random ppcg-py option sets.

Tile sizes are drawn from {2, 3, 4, 8, 16, 32} and the generator's parameter
values are primes of at least 5, so no loop extent is a multiple of a tile size:
partial tiles, grid wrap-around and blocks larger than the work are the rule.
A `--ctx` is only ever one the program's actual parameter values satisfy.
A quarter of the cases are compiled for the C target (`--target=c --openmp`, half
of them with `--tile`), a fifth for OpenCL (run on PoCL; as CUDA where no OpenCL
runtime is installed, see runner.run_file), the others for CUDA. Three in ten get
`--reductions`, one in ten `--atomic-reductions`. `python -m fuzz --target T` gives every case the target `T` instead
(`c`: the C target, always with `--tile`; `opencl`; `cuda`), to aim a campaign at one.
Half of the tiled C cases name small register blocks (`register[R, C]` in `--sizes`),
three in ten isolate their full tiles (`--isolate-full-tiles`), four in ten are tiled along
time wherever isl's schedule allows (`--time-tiles=always`), half of those with the time
band's second member untiled (`whole[1]` in `--sizes`). Half of the CUDA and OpenCL cases
ask for `--warp-shuffles` (CUDA's kernels pass row neighbours between lanes where a
tile's lanes are even; OpenCL ignores it), half of those with sizes whose whole tiles
shuffle (rows of 8 or 16 lanes, whole warps). A quarter of the CUDA cases ask for
`--hybrid` (split tiles along time where the SCoP is a time loop around sweeps), without
size options, which it does not combine with. A program with a stencil (`idioms.stencil`)
is tiled along time twice as often: eight in ten of its tiled C cases, six in ten of its
CUDA ones split along time. Eight in ten run every
parallel loop with threads, however short (the verifier's `--min-parallel-work=0`), two
in ten leave short ones serial, as the command line does by default.
"""
from __future__ import annotations

import math
import random
import re

from ppcg_py.options import DEFAULT_MIN_PARALLEL_WORK

from .program import Program

TILE_SIZES = (2, 3, 4, 8, 16, 32)
BLOCK_SIZES = (1, 2, 3, 4, 5, 8, 16, 32)
GRID_SIZES = (1, 2, 3, 4, 7, 64)
TARGETS = {"c": ("--target=c", "--openmp", "--tile"), "opencl": ("--target=opencl",), "cuda": ()}


def _tile_sizes_named(args: list[str]) -> list[int]:
    """The tile sizes the options name (`--tile-sizes`, `-S`, `tile[...]` of `--sizes`)."""
    found: list[int] = []
    for flag, value in zip(args, args[1:]):
        if flag in ("--tile-sizes", "-S"):
            found += [int(v) for v in value.split(",")]
        elif flag == "--sizes":
            found += [int(v) for part in re.findall(r"tile\[([\d,]+)\]", value) for v in part.split(",")]
    return found


def _sizes(rng: random.Random, choices: tuple[int, ...], count: int) -> str:
    return ",".join(str(rng.choice(choices)) for _ in range(count))


def random_options(seed: int | str, program: Program, only: str | None = None) -> tuple[str, ...]:
    """A deterministic random option set for one program (for the target `only`, if given)."""
    rng = random.Random(f"options:{seed}")
    args: list[str] = []
    roll = rng.random()
    if roll < 0.3:
        args += ["--tile-sizes", _sizes(rng, TILE_SIZES, rng.randint(1, 4))]
    elif roll < 0.6:
        parts = []
        if rng.random() < 0.8:
            parts.append(f"kernel[i] -> tile[{_sizes(rng, TILE_SIZES, rng.randint(1, 3))}]")
        if rng.random() < 0.7:
            parts.append(f"kernel[i] -> block[{_sizes(rng, BLOCK_SIZES, rng.randint(1, 3))}]")
        if rng.random() < 0.6:
            parts.append(f"kernel[i] -> grid[{_sizes(rng, GRID_SIZES, rng.randint(1, 2))}]")
        if parts:
            args += ["--sizes", "{ " + "; ".join(parts) + " }"]
    elif roll < 0.7:
        args += ["-S", str(rng.choice(TILE_SIZES))]
    for flag, chance in (("--no-shared-memory", 0.2), ("--no-private-memory", 0.2),
                         ("--isl-schedule-serialize-sccs", 0.2),
                         ("--isl-schedule-whole-component", 0.05),
                         ("--no-reschedule", 0.05),
                         ("--assume-non-negative-parameters", 0.1)):
        if rng.random() < chance:
            args.append(flag)
    if rng.random() < 0.1 and program.params:
        name, value = rng.choice(program.params)
        names = ", ".join(n for n, _ in program.params)
        args += ["--ctx", f"[{names}] -> {{ : {name} >= {rng.randint(1, value)} }}"]
    # floating-point reductions reassociated (integer ones always are), from a generator of
    # its own as the target: the other options of a seed stay what they were
    if random.Random(f"reductions:{seed}").random() < 0.3:
        args.append("--reductions")
    # blocks that add their sums atomically (CUDA, where a sum is spread over blocks), from a
    # generator of its own: the other options of a seed stay what they were
    if random.Random(f"atomic:{seed}").random() < 0.1:
        args.append("--atomic-reductions")
    # the target last, from a generator of its own: the CUDA options of a seed stay what they were
    if only is not None:
        chosen = list(TARGETS[only])
    else:
        target = random.Random(f"target:{seed}")
        roll = target.random()
        chosen = []
        if roll < 0.25:   # the C target (verified with 1, 2, 4 threads); the CUDA options are ignored
            chosen = ["--target=c", "--openmp", *(["--tile"] if target.random() < 0.5 else [])]
        elif roll < 0.45:   # OpenCL: the same kernels as CUDA, printed for an OpenCL runtime
            chosen = ["--target=opencl"]
    # neighbours by warp shuffles (CUDA), from a generator of its own
    shuffles = random.Random(f"shuffles:{seed}")
    if "--target=c" not in chosen and shuffles.random() < 0.5:
        args.append("--warp-shuffles")
        if shuffles.random() < 0.5:
            args = _shuffled_shape(args, shuffles)
    # split tiles along time (CUDA, --hybrid), from a generator of its own: they choose
    # their own sizes, so the case names none
    stencil = _has_stencil(program)
    if not chosen and random.Random(f"hybrid:{seed}").random() < (0.6 if stencil else 0.25):
        args = _without_sizes(args) + ["--hybrid"]
    if "--tile" in chosen:
        args = _with_register_blocks(args, random.Random(f"register:{seed}"))
        # full tiles apart (isl's isolate option), from a generator of its own
        if random.Random(f"isolate:{seed}").random() < 0.3:
            args.append("--isolate-full-tiles")
        # tiles along time wherever isl's schedule allows: the generator's arrays are
        # small, and the cache model would rarely take them
        if random.Random(f"time:{seed}").random() < (0.8 if stencil else 0.4):
            args.append("--time-tiles=always")
            # half of them leave the band's second member untiled (`whole[1]`; the model
            # leaves the innermost whole where a row fits in a tile, as most do here)
            if random.Random(f"whole:{seed}").random() < 0.5:
                args = _with_entry(args, "kernel[0] -> whole[1]")
    # the generator's loops are short: the parallel-work model would keep nearly every
    # OpenMP loop (C target, host paths) serial, and threads would run none; the verifier
    # runs every one unless told (its default), so two in ten name the model's default
    if random.Random(f"parallel-work:{seed}").random() < 0.2:
        args.append(f"--min-parallel-work={DEFAULT_MIN_PARALLEL_WORK}")
    return (*args, *chosen)


def _has_stencil(program: Program) -> bool:
    """Whether `program` holds a time-iterated stencil (`idioms.stencil`'s grids)."""
    return any(a.name.startswith(("field", "fnext")) for a in program.arrays)


def _without_sizes(args: list[str]) -> list[str]:
    """`args` without the options that name sizes (`--tile-sizes`, `-S`, `--sizes`)."""
    kept: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in ("--tile-sizes", "-S", "--sizes"):
            skip = True
        else:
            kept.append(arg)
    return kept


def _shuffled_shape(args: list[str], rng: random.Random) -> list[str]:
    """`args` with sizes whose whole tiles shuffle (rows of 8 or 16 lanes, whole warps,
    tiles a multiple of the blocks, small enough for the generator's extents), in place
    of the sizes they named: random sizes rarely have such a shape."""
    kept = _without_sizes(args)
    width = rng.choice((8, 16))
    rows = 32 // width
    tile = f"{rows * rng.choice((1, 2))},{width * rng.choice((1, 2))}"
    return [*kept, "--sizes", f"{{ kernel[i] -> tile[{tile}]; kernel[i] -> block[{rows},{width}] }}"]


def _with_entry(args: list[str], entry: str) -> list[str]:
    """`args` with `entry` added to its `--sizes` (one made where there is none)."""
    if "--sizes" not in args:
        return [*args, "--sizes", f"{{ {entry} }}"]
    at = args.index("--sizes") + 1
    return [*args[:at], args[at].replace("{ ", f"{{ {entry}; ", 1), *args[at + 1:]]


def _with_register_blocks(args: list[str], rng: random.Random) -> list[str]:
    """Half of the tiled C cases name small register blocks (`register[R, C]` in
    `--sizes`): the default blocks (2 x 24 doubles) rarely fit the generator's small
    extents, small ones do. A block must divide its tile: mostly one whose sides
    divide every tile size of the case (32 where it names none), sometimes any (the
    compiler then refuses it with a warning)."""
    if rng.random() >= 0.5:
        return args
    sizes = _tile_sizes_named(args) or [32]
    common = math.gcd(*sizes)
    fitting = rng.random() < 0.8

    def side(choices: tuple[int, ...]) -> int:
        dividing = [c for c in choices if common % c == 0] if fitting else []
        return rng.choice(dividing or choices)
    return _with_entry(args, f"kernel[i] -> register[{side((1, 2, 3, 4))}, {side((2, 3, 4, 8))}]")
