"""The `ppcg-py` command line: PPCG's option names, located one-line errors."""
from __future__ import annotations

import argparse
import os
import sys
import traceback

from .depfile import DependencyRequest, output_paths, rule_and_path
from .diagnostics import CompileError
from .gpu_targets import DEFAULT_GPU, GPUS, detect, gpu_named
from .options import DEFAULT_MIN_PARALLEL_WORK, PPCG_SHARED_MEMORY, Options


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, no usage dump
        print(f"ppcg-py: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _tile_sizes(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(v) for v in text.replace("x", ",").split(",") if v.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected sizes like 32,32,16, got '{text}'") from None
    if not values or any(v <= 0 for v in values):
        raise argparse.ArgumentTypeError(f"tile sizes must be positive integers, got '{text}'")
    return values


def _stage_name(text: str) -> str:
    """A stage of the pipeline (the driver, with every stage, loads only when one is named)."""
    from .driver import STAGE_NAMES
    if text not in STAGE_NAMES:
        raise argparse.ArgumentTypeError(f"invalid choice: '{text}' (choose from {', '.join(STAGE_NAMES)})")
    return text


def _gpu_name(text: str) -> str:
    gpu = gpu_named(text)
    if gpu is None:
        raise argparse.ArgumentTypeError(f"unknown GPU '{text}' (known: {', '.join(GPUS)})")
    return gpu.name


def _integer(text: str, least: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got '{text}'") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"expected {what}, got '{text}'")
    return value


def _positive(text: str) -> int:
    return _integer(text, 1, "a positive integer")


def _count(text: str) -> int:
    return _integer(text, 0, "a non-negative integer")


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got '{text}'") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got '{text}'")
    return value


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="ppcg-py", description="Polyhedral compiler from C to CUDA (PPCG's options).")
    p.add_argument("input", help="C source file with #pragma scop regions")
    p.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR")
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]")
    p.add_argument("--output-dir", "-d", default=".", help="where to write NAME_host.cu, NAME_kernel.cu/.hu")
    p.add_argument("-o", dest="output", default=None,
                   help="the output file (c), or the host file, the kernel files beside it: named after the "
                        "input (cuda) or after this name (opencl: NAME_kernel.cl), as PPCG")
    p.add_argument("--target", default="cuda", choices=["cuda", "c", "opencl"],
                   help="cuda (NAME_host.cu, NAME_kernel.cu/.hu), c (NAME.ppcg.c) or opencl (NAME_host.c, "
                   "NAME_kernel.cl) [cuda]")
    p.add_argument("--openmp", action="store_true",
                   help="C target: an OpenMP `parallel for` on the outermost parallel loop of each band "
                        "(one `parallel` region around a serial loop that holds such loops, "
                        "with `omp for` inside)")
    p.add_argument("--tile", action="store_true",
                   help="C target: tile the permutable bands (-S, --tile-sizes, --sizes)")
    p.add_argument("--no-register-tiles", action="store_true",
                   help="C target with --tile: do not keep an accumulated block of an array (gemm's C) "
                        "in registers across the loop between its rows and columns")
    p.add_argument("--no-row-pairs", action="store_true",
                   help="C target with time tiles: run each row of a tile alone, not two neighbouring rows in "
                        "one loop")
    p.add_argument("--no-row-functions", action="store_true",
                   help="C target: keep each row loop that addresses many rows where it is, not in a function "
                        "of its own")
    p.add_argument("--time-tiles", choices=("auto", "always", "never"), default="auto",
                   help="C target with --tile: where the outermost loop carries dependences (a stencil's "
                        "time loop), tiles that span several of its steps, run as wavefronts: where the "
                        "arrays outgrow the L2 cache and a tile's rows vectorise (auto), wherever isl's "
                        "schedule allows (always), or never: each step's sweeps tiled alone [auto]")
    p.add_argument("--no-time-tiles", action="store_const", const="never", dest="time_tiles",
                   help="--time-tiles=never")
    p.add_argument("--min-parallel-work", type=_count, default=DEFAULT_MIN_PARALLEL_WORK, metavar="N",
                   help="C target and host paths with --openmp: a parallel loop whose every execution runs "
                        "fewer than N statement instances (bounded from the arrays' declared sizes) stays "
                        "serial, since a barrier costs more than its work; 0: every parallel loop runs in "
                        f"parallel [{DEFAULT_MIN_PARALLEL_WORK}]")
    p.add_argument("--hybrid", action="store_true",
                   help="CUDA: tile a stencil's time loop with its space loops (split tiles along each space "
                        "loop, in phases whose tiles are independent), so that one launch runs several time "
                        "steps, a barrier between them, a tile's arrays in shared memory for the whole launch "
                        "where they fit; -v says where it does not apply and why")
    p.add_argument("--isolate-full-tiles", action="store_true",
                   help="C target with --tile: generate the full tiles apart from the partial ones, their "
                        "point loops with constant bounds (isl's isolate option)")
    p.add_argument("--reductions", action="store_true",
                   help="let floating-point sums and products (s += e, s *= e) be reassociated, as gcc's "
                        "-fassociative-math: their loops may run in parallel (C: OpenMP `reduction`; CUDA, "
                        "OpenCL: the threads of a block combine their partials in a fixed order) and the "
                        "rounding of the result may change. Integer reductions and min/max are exact and "
                        "always reassociated; -v lists the reduction loops found")
    p.add_argument("--atomic-reductions", action="store_true",
                   help="cuda: where several blocks sum into one location (a reduction with no parallel loop "
                        "around it, spread over the GPU), each block adds its partial with atomicAdd (or "
                        "atomicMin, ...) as it finishes: faster, but the order of a floating-point sum then "
                        "changes from run to run. Without it the last block to finish adds the blocks' "
                        "partials in block order: the same result on every run")
    p.add_argument("--no-device-loops", action="store_true",
                   help="cuda: launch every kernel from the host, even where kernels are small enough for "
                        "one block to run them in one launch: the serial loop around them (a device loop) "
                        "or consecutive ones (fused kernels)")
    p.add_argument("--warp-shuffles", action="store_true",
                   help="cuda: where a statement reads neighbouring elements along thread x (a stencil's "
                        "A[i][j-1], A[i][j], A[i][j+1]), each lane loads one and takes its neighbours' from the "
                        "lanes next to it by __shfl_up_sync/__shfl_down_sync, in whole tiles (-v names them)")
    p.add_argument("--no-host-path", action="store_true",
                   help="cuda, opencl: the device code alone; by default each SCoP is also compiled for the "
                        "host (as --target=c --openmp --tile) and the program runs it there when no device is "
                        "usable or the model predicts the device slower (PPCG_PY_DEVICE=gpu|cpu|auto at run "
                        "time overrides; -v prints each SCoP's rule)")
    p.add_argument("--timing", action="store_true",
                   help="cuda, opencl: time each kernel launch and each copy with the runtime's events and "
                        "print, at exit on stderr, per kernel its launches, total and mean time and its "
                        "GFLOP/s and GB/s (work as -v counts it), and per copy direction its bytes and GB/s")
    p.add_argument("--opencl-embed-kernel-code", action="store_true",
                   help="opencl: the kernel source as a string in the host file, not read from NAME_kernel.cl")
    p.add_argument("--opencl-include-file", action="append", default=[], metavar="FILE",
                   help="opencl: #include FILE in the kernel source (repeatable)")
    p.add_argument("--opencl-compiler-options", default="", metavar="OPTS",
                   help="opencl: options for clBuildProgram")
    p.add_argument("--opencl-no-use-gpu", action="store_true",
                   help="opencl: take the first device of any type, not a GPU first")
    p.add_argument("-S", "--tile-size", type=_positive, default=None,
                   help="default tile size [32; the C target without any size option: from the caches]")
    p.add_argument("--tile-sizes", type=_tile_sizes, default=None, help="tile sizes, outermost first: 32,32,16")
    p.add_argument("--sizes", default=None,
                   help='per-kernel sizes: "{ kernel[i] -> tile[32,32]; ... }"; "ppcg": PPCG\'s default sizes '
                        '(tile 32, blocks 32, 32x16, 32x4x4) instead of sizes chosen for the GPU')
    p.add_argument("--gpu", type=_gpu_name, default=None, metavar="NAME",
                   help="size kernels for this card when no size option is given: "
                        f"{', '.join(GPUS)} [the card nvidia-smi reports, else {DEFAULT_GPU}]")
    p.add_argument("--sizes-file", default=None, metavar="FILE",
                   help="per-kernel sizes from FILE, in --sizes syntax ('#' starts a comment); what "
                        "--autotune writes")
    p.add_argument("--ctx", default=None, help="constraints on the parameters, e.g. '[n] -> { : n >= 32 }'")
    p.add_argument("--assume-non-negative-parameters", action="store_true")
    p.add_argument("--no-reschedule", action="store_true", help="keep the original schedule")
    p.add_argument("--live-range-reordering", dest="live_range_reordering", action="store_true", default=True,
                   help="let the scheduler reorder live ranges of a variable that stay within one "
                        "iteration, as PPCG does [on]")
    p.add_argument("--no-live-range-reordering", dest="live_range_reordering", action="store_false",
                   help="keep every anti and output dependence")
    p.add_argument("--expand-arrays", dest="expand_arrays", action="store_true", default=True,
                   help="GPU targets: give an array whose values live within one iteration of the loops "
                        "around it a copy per iteration in device memory, so those loops run in parallel; C "
                        "target with --tile: a copy per iteration of the innermost of those loops, where that "
                        "lets a band keep register blocks, and to a scalar (ludcmp's w) where that lets its loop move "
                        "inside a loop that walks down columns [on]")
    p.add_argument("--no-expand-arrays", dest="expand_arrays", action="store_false",
                   help="keep every array as the program declares it (as PPCG)")
    p.add_argument("--schedule-timeout", type=float, default=30.0, metavar="SECONDS",
                   help="bound on isl's scheduler per SCoP, in CPU seconds; then the original loop order "
                        "is kept [30]")
    p.add_argument("--timeout", type=float, default=300.0, metavar="SECONDS",
                   help="bound on the whole compilation, in CPU seconds (wall time: 4x); past it, one more "
                        "try with the original loop "
                        "order and global memory only, then an error naming the step [300; 0: none]")
    p.add_argument("--isl-max-operations", type=int, default=0, metavar="N",
                   help="bound on isl's operations per step, handled like --timeout [0: none]")
    p.add_argument("--dataflow-max-operations", type=_positive, default=Options.dataflow_max_operations,
                   metavar="N",
                   help="bound on isl's dataflow analysis per SCoP; past it, memory-based dependences "
                        "and the original loop order [%(default)s]")
    p.add_argument("--max-shared-memory", type=_positive, default=None, metavar="BYTES",
                   help="shared memory per block for promoted reference groups [the --gpu card's static limit "
                        "per block, 49152; PPCG's 8192 with --sizes ppcg]")
    p.add_argument("--no-shared-memory", action="store_true")
    p.add_argument("--no-private-memory", action="store_true")
    p.add_argument("--no-group-chains", action="store_true",
                   help="do not merge reference groups whose joint shared-memory tile is smaller than "
                        "their two tiles together")
    p.add_argument("--unroll-copy-shared", action="store_true", help="unroll copies to/from shared memory")
    p.add_argument("--unroll-gpu-tile", action="store_true", help="unroll the point loops of each kernel")
    p.add_argument("--isl-schedule-serialize-sccs", action="store_true")
    p.add_argument("--isl-schedule-whole-component", action="store_true")
    p.add_argument("--no-isl-schedule-outer-coincidence", action="store_true")
    p.add_argument("--isl-schedule-max-coefficient", type=int, default=-1)
    p.add_argument("--isl-schedule-algorithm", choices=["isl", "feautrier"], default="isl")
    for dump in ("scop", "schedule", "final-schedule", "sizes"):
        p.add_argument(f"--dump-{dump}", action="store_true", help=f"print the {dump.replace('-', ' ')}")
    p.add_argument("--dump-after", action="append", default=[], type=_stage_name, metavar="STAGE",
                   help="print what a stage made, as text (extract, schedule, memory, ast, print); repeatable")
    p.add_argument("-v", "--verbose", "--report", dest="verbose", action="store_true",
                   help="report stage times and what was mapped where")
    tune = p.add_argument_group("Tile sizes tuned by timing the program here (the C target with --tile; "
                                "the input needs a main)")
    tune.add_argument("--autotune", action="store_true",
                      help="build and time variants of the tile sizes per tiled band, keep the fastest in a "
                           "sizes file, and compile with them")
    tune.add_argument("--autotune-budget", type=_positive_seconds, default=None, metavar="SECONDS",
                      help="no variant starts after this many seconds [120]")
    tune.add_argument("--autotune-out", default=None, metavar="FILE",
                      help="the sizes file to write [NAME.sizes beside the output]")
    tune.add_argument("--autotune-cc-args", default="", metavar="ARGS",
                      help="more sources and flags for gcc when building the variants, e.g. "
                           "'polybench/utilities/polybench.c'")
    tune.add_argument("--autotune-candidates", type=_tile_sizes, default=None, metavar="SIZES",
                      help="the tile sizes each band member may take [8,16,32,64,128,256,512]")
    deps = p.add_argument_group("Make dependencies (as gcc's; the targets are the outputs, -MP is implied)")
    deps.add_argument("-M", dest="deps_only", action="store_true",
                      help="print the rule instead of writing the outputs (the input is still compiled: "
                           "the outputs' names depend on it)")
    deps.add_argument("-MD", dest="deps_with_outputs", action="store_true",
                      help="also write the rule, to the first output's name and .d (NAME_host.cu.d)")
    deps.add_argument("-MF", dest="dep_file", metavar="FILE", help="write the rule to FILE")
    deps.add_argument("-MT", dest="dep_targets", action="append", default=[], metavar="TARGET",
                      help="the rule's target instead of the outputs (repeatable)")
    deps.add_argument("-MP", action="store_true", help="accepted for gcc's sake: always on")
    return p


def dependency_request(args: argparse.Namespace) -> DependencyRequest:
    return DependencyRequest(only=args.deps_only, with_outputs=args.deps_with_outputs,
                             file=args.dep_file, targets=tuple(args.dep_targets))


def options_from(args: argparse.Namespace) -> Options:
    """The compilation options; `--sizes ppcg` means no sizes, and neither PPCG's defaults
    nor a size option given means sizes chosen for the GPU."""
    ppcg_defaults = args.sizes is not None and args.sizes.strip().lower() == "ppcg"
    if ppcg_defaults:
        args.sizes = None
    given = args.tile_size is not None or args.tile_sizes is not None or args.sizes is not None
    gpu = args.gpu or (_present_gpu(args.target) if not given and not ppcg_defaults else DEFAULT_GPU)
    output_dir = args.output_dir
    if args.output:
        output_dir = os.path.dirname(args.output) or output_dir
    return Options(
        include_dirs=tuple(args.include_dirs), defines=tuple(args.defines), output_dir=output_dir,
        output_name=os.path.basename(args.output) if args.output else None,
        tile_size=args.tile_size or Options.tile_size, tile_sizes=args.tile_sizes, sizes=args.sizes,
        cache_tiles=not given and not ppcg_defaults, context=args.ctx,
        assume_nonneg=args.assume_non_negative_parameters, reschedule=not args.no_reschedule,
        live_range_reordering=args.live_range_reordering, expand_arrays=args.expand_arrays,
        schedule_timeout=args.schedule_timeout, timeout=args.timeout,
        isl_max_operations=args.isl_max_operations, dataflow_max_operations=args.dataflow_max_operations,
        serialize_sccs=args.isl_schedule_serialize_sccs, whole_component=args.isl_schedule_whole_component,
        outer_coincidence=not args.no_isl_schedule_outer_coincidence,
        max_coefficient=args.isl_schedule_max_coefficient,
        feautrier=args.isl_schedule_algorithm == "feautrier",
        gpu=gpu,
        device_sizes=not given and not ppcg_defaults,
        max_shared_memory=args.max_shared_memory or (PPCG_SHARED_MEMORY if ppcg_defaults else
                                                     GPUS[gpu].shared_per_block),
        use_shared_memory=not args.no_shared_memory,
        use_private_memory=not args.no_private_memory, register_tiles=not args.no_register_tiles,
        row_pairs=not args.no_row_pairs, row_functions=not args.no_row_functions,
        isolate_full_tiles=args.isolate_full_tiles, time_tiles=args.time_tiles,
        min_parallel_work=args.min_parallel_work,
        group_chains=not args.no_group_chains,
        unroll_copy_shared=args.unroll_copy_shared, unroll_gpu_tile=args.unroll_gpu_tile,
        dumps=frozenset(d for d in ("scop", "schedule", "final-schedule", "sizes")
                        if getattr(args, "dump_" + d.replace("-", "_"))),
        dump_after=tuple(args.dump_after),
        verbose=args.verbose, target=args.target, openmp=args.openmp, tile=args.tile, reductions=args.reductions,
        atomic_reductions=args.atomic_reductions, device_loops=not args.no_device_loops,
        warp_shuffles=args.warp_shuffles, hybrid=args.hybrid,
        host_path=not args.no_host_path,
        timing=args.timing,
        opencl_embed_kernel_code=args.opencl_embed_kernel_code,
        opencl_include_files=tuple(args.opencl_include_file),
        opencl_compiler_options=args.opencl_compiler_options, opencl_use_gpu=not args.opencl_no_use_gpu)


def _present_gpu(target: str) -> str:
    """The card this machine has, for the GPU targets; else the default."""
    found = detect() if target != "c" else None
    return found.name if found is not None else DEFAULT_GPU


def _write(files, input_path: str, options: Options, request: DependencyRequest) -> None:
    """The outputs and the dependency rule (-M: the rule only), all or none."""
    from .driver import write_outputs

    also: list[tuple[str, str]] = []
    if request.wanted:
        outputs = output_paths([name for name, _ in files.items()], options.output_dir)
        rule, rule_path = rule_and_path(request, input_path, options, outputs)
        if rule_path is None:
            sys.stdout.write(rule)
        else:
            also.append((rule_path, rule))
    if not request.only:
        write_outputs(files, options.output_dir, also, input_path)
    elif also:
        write_outputs({}, options.output_dir, also, input_path)


def _check_tuning_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Usage errors of --sizes-file and --autotune, before anything is compiled."""
    if args.sizes is not None and args.sizes_file is not None:
        parser.error("--sizes and --sizes-file cannot be used together (the file holds --sizes' text)")
    tuning = [f"--autotune-{name}" for name, value in (("budget", args.autotune_budget), ("out", args.autotune_out),
                                                       ("cc-args", args.autotune_cc_args),
                                                       ("candidates", args.autotune_candidates)) if value]
    if tuning and not args.autotune:
        parser.error(f"{tuning[0]} needs --autotune")
    if args.autotune:
        from .autotune import refusal
        why = refusal(options_from(args))
        if why is not None:
            parser.error(why)


def _autotuned(args: argparse.Namespace, options: Options) -> Options:
    """--autotune: the options with the best sizes found (the sizes file written)."""
    import shlex
    from pathlib import Path

    from .autotune import CANDIDATES, DEFAULT_BUDGET, TuneSettings, tuned_options
    settings = TuneSettings(budget=args.autotune_budget or DEFAULT_BUDGET,
                            candidates=args.autotune_candidates or CANDIDATES,
                            cc_args=tuple(shlex.split(args.autotune_cc_args)))
    out = Path(args.autotune_out or Path(options.output_dir) / f"{Path(args.input).stem}.sizes")
    return tuned_options(args.input, options, settings, out, lambda line: print(f"ppcg-py: {line}", file=sys.stderr))


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    request = dependency_request(args)
    if not request.wanted and (request.file is not None or request.targets):
        parser.error("-MF and -MT need -M or -MD")
    _check_tuning_options(parser, args)
    # only now: the pipeline loads isl, pycparser and every stage, which `--help`
    # and a mistyped option do not need (about 0.1 s)
    from .driver import compile_bounded

    if hasattr(sys.stdout, "reconfigure"):   # the dumps quote the input: its bytes that are not UTF-8 as they are
        sys.stdout.reconfigure(errors="surrogateescape")
    try:
        if args.sizes_file is not None:
            from .schedule.sizes import read_sizes_file
            args.sizes = read_sizes_file(args.sizes_file)
        options = options_from(args)
        if args.autotune:
            options = _autotuned(args, options)
        files = compile_bounded(args.input, options)
        _write(files, args.input, options, request)
        return 0
    except CompileError as err:
        if err.file is None and err.line is None and not err.message.startswith("--"):
            err.file = args.input
        print(err.render(), file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - never show a traceback to a user
        if os.environ.get("PPCG_PY_DEBUG"):
            traceback.print_exc()
        print(f"{args.input}: error: internal compiler error ({type(exc).__name__}: {exc}); "
              "set PPCG_PY_DEBUG=1 for details", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
