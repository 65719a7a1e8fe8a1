"""`python -m fuzz` (run from tests/, or `make fuzz`): a differential fuzzing campaign.

    python -m fuzz --count 1000 --jobs 2 --seed 1      # FUZZ_COUNT / FUZZ_SEED / FUZZ_JOBS
    python -m fuzz --replay 1:17                       # one case: print it, run it
    python -m fuzz --replay 1:17 --shrink-one --save   # shrink it into tests/regressions/
"""
from __future__ import annotations

import argparse
import functools
import os
import sys
from pathlib import Path

if str(Path(__file__).resolve().parents[2]) not in sys.path:  # ppcg_py without installing it
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from . import campaign, corpus  # noqa: E402
from .generate import Features  # noqa: E402
from .options import TARGETS  # noqa: E402
from .patterns import patterns  # noqa: E402
from .render import render, render_library  # noqa: E402
from .runner import ROOT, data_type_of, run_case  # noqa: E402
from .shrink import shrink  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m fuzz", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--count", type=int, default=int(os.environ.get("FUZZ_COUNT", 1000)))
    p.add_argument("--seed", default=os.environ.get("FUZZ_SEED", "1"))
    p.add_argument("--start", type=int, default=0, help="first case index")
    p.add_argument("--jobs", type=int, default=int(os.environ.get("FUZZ_JOBS", 2)))
    p.add_argument("--nvcc-every", type=int, default=25, help="check every Nth case with nvcc (0: never)")
    p.add_argument("--out", type=Path, default=ROOT / "out" / "fuzz")
    p.add_argument("--root", type=Path, default=ROOT, help="the ppcg-py checkout to test")
    p.add_argument("--cpu-limit", type=int, default=60,
                   help="CPU seconds ppcg-py may use per program before it counts as a timeout")
    p.add_argument("--keep-passing", action="store_true", help="keep the work folders of passing cases")
    p.add_argument("--no-shrink", action="store_true")
    p.add_argument("--shrink-budget", type=float, default=600, help="seconds per failure")
    p.add_argument("--save", action="store_true", help="save shrunk failures in tests/regressions/")
    p.add_argument("--without", action="append", default=[], choices=sorted(Features.__dataclass_fields__),
                   help="turn a generator feature off (repeatable)")
    p.add_argument("--with", dest="with_", action="append", default=[],
                   choices=sorted(Features.__dataclass_fields__), help="turn a generator feature on")
    p.add_argument("--target", choices=sorted(TARGETS), help="every case for this target (c: with --tile)")
    p.add_argument("--replay", metavar="SEED:INDEX", help="run one case and print it")
    p.add_argument("--shrink-one", action="store_true", help="with --replay: shrink the case")
    p.add_argument("--shrink-match", metavar="TEXT",
                   help="with --shrink-one: keep a candidate when ppcg-py's message contains TEXT "
                        "(e.g. to shrink a rejection) instead of when it fails the same way")
    args = p.parse_args(argv)
    if args.replay:
        return _replay(args)
    settings = campaign.Settings(seed=args.seed, count=args.count, start=args.start, jobs=args.jobs,
                                 nvcc_every=args.nvcc_every, out=args.out.resolve(), root=args.root.resolve(),
                                 keep_passing=args.keep_passing, shrink=not args.no_shrink,
                                 shrink_budget=args.shrink_budget, save=args.save,
                                 features=_features(args), cpu_limit=args.cpu_limit, target=args.target)
    summary = campaign.run(settings)
    bad = sum(n for k, n in summary["verdicts"].items() if k not in ("pass", "rejection"))
    return 1 if bad else 0


def _features(args: argparse.Namespace) -> Features:
    chosen = {name: True for name in args.with_}
    chosen.update({name: False for name in args.without})
    return Features(**chosen)


def _replay(args: argparse.Namespace) -> int:
    program, opts = campaign.make_case(args.replay, _features(args), args.target)
    text = render(program)
    workdir = (args.out / "replay" / args.replay.replace(":", "_")).resolve()
    run = functools.partial(run_case, root=args.root.resolve(), cpu_limit=args.cpu_limit)
    print(text)
    if (lib := render_library(program)) is not None:
        print(f"/* ---- {workdir / 'prog_lib.c'} (linked with every build) ---- */\n{lib}")
    print("options:", " ".join(opts))
    print("patterns:", " ".join(sorted(patterns(program))))
    outcome = run(text, program, opts, workdir, use_nvcc=args.nvcc_every == 1)
    print(f"{outcome.verdict} {outcome.detail} ({outcome.seconds:.1f} s)\n{outcome.message}")
    interesting = outcome.failed or (args.shrink_match and args.shrink_match in outcome.message)
    if not (args.shrink_one and interesting):
        return 1 if outcome.failed else 0
    counter = [0]

    def still_fails(case) -> bool:
        counter[0] += 1
        out = run(render(case[0]), case[0], case[1], workdir / "shrink")
        if args.shrink_match:
            return args.shrink_match in out.message
        return out.signature == outcome.signature

    small, small_args = shrink((program, opts), still_fails, budget_s=args.shrink_budget,
                               log=lambda m: print(m, file=sys.stderr, flush=True))
    small_text = render(small)
    final = run(small_text, small, small_args, workdir / "final")
    print(small_text)
    if (small_lib := render_library(small)) is not None:
        print(f"/* ---- {workdir / 'final' / 'prog_lib.c'} ---- */\n{small_lib}")
    print("options:", " ".join(small_args))
    print(f"shrunk after {counter[0]} tries: {final.verdict} {final.detail}\n{final.message[:2000]}")
    if args.save and (final.failed or args.shrink_match):
        print("saved:", corpus.save(small_text, small_args, data_type_of(small), final, args.replay,
                                    library=small_lib))
    return 1


if __name__ == "__main__":
    sys.exit(main())
