"""Compilation options (PPCG's names and defaults), shared by every stage."""
from __future__ import annotations

from dataclasses import dataclass, field

from .isl_budget import LIMITS


# PPCG's shared memory per block (its --max-shared-memory default), kept by --sizes ppcg
PPCG_SHARED_MEMORY = 8192
# statement instances per execution below which an OpenMP loop stays serial (cli.py's
# default of --min-parallel-work): ~10 µs of work, against a barrier of a few µs
DEFAULT_MIN_PARALLEL_WORK = 1 << 15


@dataclass(frozen=True)
class Options:
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    output_dir: str = "."
    output_name: str | None = None            # -o's file name: the host file (C: the one file)
    tile_size: int = 32                       # -S / --tile-size
    tile_sizes: tuple[int, ...] | None = None  # --tile-sizes 32,32,16 (outermost first)
    cache_tiles: bool = False                 # C target: tile sizes from the cache model (no size given)
    sizes: str | None = None                  # --sizes "{ kernel[i] -> tile[...]; ... }"
    context: str | None = None                # --ctx
    assume_nonneg: bool = False
    reschedule: bool = True
    live_range_reordering: bool = True        # order dependences as conditional validity (PPCG's default)
    expand_arrays: bool = True                # a copy per iteration of temporary arrays (schedule/expansion.py)
    schedule_timeout: float = 30.0            # seconds for isl's scheduler, per SCoP
    timeout: float = 300.0                    # seconds for a whole compilation (0: no bound)
    isl_max_operations: int = LIMITS.step     # isl operations per step (0: no bound)
    dataflow_max_operations: int = LIMITS.dataflow  # then memory-based dependences
    serialize_sccs: bool = False
    whole_component: bool = False
    outer_coincidence: bool = True
    max_coefficient: int = -1
    feautrier: bool = False
    # bytes of shared memory a block's promoted groups may use: --gpu's static limit per
    # block (48 KB), PPCG's 8192 with --sizes ppcg (cli.py), or --max-shared-memory
    max_shared_memory: int = 48 * 1024
    gpu: str = "H100"                         # --gpu: the card kernels are sized for (gpu_targets.GPUS)
    device_sizes: bool = False                # size kernels for `gpu` (no size option given, no --sizes ppcg)
    use_shared_memory: bool = True
    use_private_memory: bool = True
    group_chains: bool = True                 # merge groups whose joint shared tile is smaller
    unroll_copy_shared: bool = False          # unroll the loops that copy to/from shared memory
    unroll_gpu_tile: bool = False             # unroll the point loops of every kernel
    dumps: frozenset[str] = field(default_factory=frozenset)  # scop, schedule, sizes, ...
    dump_after: tuple[str, ...] = ()          # --dump-after=STAGE: print what that stage made
    verbose: bool = False
    target: str = "cuda"                      # --target: "cuda", "c" (NAME.ppcg.c) or "opencl"
    openmp: bool = False                      # --openmp (C target): `omp parallel for` on parallel loops
    tile: bool = False                        # --tile (C target): tile the permutable bands
    time_tiles: str = "auto"                  # C target: auto, always, never (cpu/time_tiles.py)
    register_tiles: bool = True               # C target: keep accumulated blocks in registers (register_tiles.py)
    row_pairs: bool = True                    # C target: a time tile's rows two at a time (cpu/row_pairs.py)
    row_functions: bool = True                # C target: row loops of many rows in functions (codegen/row_functions.py)
    isolate_full_tiles: bool = False          # C target: full tiles apart, without min bounds (full_tiles.py)
    # C target and host paths: an OpenMP loop that runs fewer statement instances per
    # execution stays serial (cpu/parallel_work.py); 0: every parallel loop runs in
    # parallel, as PPCG; the command line's default is DEFAULT_MIN_PARALLEL_WORK
    min_parallel_work: int = 0
    # --reductions: floating-point sums and products may be reassociated (exact reductions
    # always are); the C target runs their loops in parallel with OpenMP's `reduction`
    reductions: bool = False
    # CUDA: where the blocks of a launch share a reduction's location (a sum over a loop with
    # no parallel loop around it), each adds its partial with an atomic operation, in the
    # order the blocks finish; without, the last block to finish adds them in block order
    atomic_reductions: bool = False
    # CUDA with sizes chosen for the GPU: a serial host loop whose kernels are small, or
    # consecutive small kernels, run in one launch of one block (schedule/gpu/device_loops.py);
    # --no-device-loops: not
    device_loops: bool = True
    # CUDA: a statement's reads of neighbouring elements along thread x come from the
    # lanes that load them, by warp shuffles, in whole tiles (memory/shuffles.py)
    warp_shuffles: bool = False
    # CUDA (PPCG's --hybrid): a stencil's time loop tiled with its space loops, each
    # launch running several time steps of independent tiles (schedule/gpu/hybrid.py)
    hybrid: bool = False
    # CUDA and OpenCL: each SCoP is also compiled as the C target compiles it (OpenMP,
    # tiled), and the program chooses per SCoP at run time: the host where no device is
    # usable or the model predicts the device slower (codegen/path_choice.py);
    # --no-host-path: the device code alone, as PPCG writes it
    host_path: bool = True
    # --timing (CUDA, OpenCL): each launch and copy timed with the runtime's events, one
    # line per kernel and per copy direction on stderr at exit (codegen/templates/timing.h.j2)
    timing: bool = False
    # --target=opencl (PPCG's names): the kernel source as a string in the host file,
    # files the kernel source includes, options for clBuildProgram, a GPU first
    opencl_embed_kernel_code: bool = False
    opencl_include_files: tuple[str, ...] = ()
    opencl_compiler_options: str = ""
    opencl_use_gpu: bool = True
