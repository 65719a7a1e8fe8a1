"""PolyBench at LARGE on a real GPU, several mappings side by side, in one short run.

A lent GPU machine has nvcc and gcc but neither islpy nor pycparser, and its time
is scarce, so the work is split in two:

    # here: compile every kernel once per way into a bundle (ppcg-py runs here);
    # other tools' outputs and cuBLAS as ways of their own (kernel times: see below)
    python benchmarks/gpu_ways.py prepare --out out/gpu-bundle \
        [--prebuilt ppcg-0.09.2=FOLDER] [--cublas]
    # there: build, run, verify and time (standard library, polybench/, nvcc, gcc)
    python3 benchmarks/gpu_ways.py run --bundle out/gpu-bundle --out "$OUT"
    # there, on a bundle prepared at a small dataset: compute-sanitizer's checks
    python3 benchmarks/gpu_ways.py sanitize --bundle out/gpu-bundle-small --out "$OUT"

`run` builds every program at once (gcc -O3 references, nvcc for each way), runs
the references (in parallel: they only give the speedup's numerator), then the GPU
programs one at a time, the ways of a kernel interleaved run by run so that drift
in the machine hits them alike. The first run of each program dumps its arrays,
which are compared with the reference's afterwards. It stops starting programs at
`--deadline` seconds and reports what it has, so the results come back inside the
device tool's ten minutes.

Kernel times: every way is built twice, as it is (PolyBench's timer gives the
program's time) and timed (ppcg-py's `--timing`; PPCG's host code with the same CUDA
events put around its launches, benchmarks/prebuilt.py; cuBLAS's calls between two
events, benchmarks/cublas_way.py), whose lines give each kernel's time and, for
ppcg-py, the work it counted. `run` writes kernels.csv and kernels.md
(benchmarks/kernel_report.py) beside results.md.
"""
from __future__ import annotations

import argparse
import concurrent.futures as futures
import csv
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
import kernel_report  # noqa: E402
from prebuilt import TIMING_HEADER, copy_prebuilt  # noqa: E402
from polybench.builds import build_program  # noqa: E402
from polybench.kernels import KERNELS, POLYBENCH_C, UTILITIES_DIR, compile_flags, source_path  # noqa: E402
from polybench.pipeline import GPU_TOLERANCES, parse_time  # noqa: E402
from ppcg_py.verify.common import DUMP_DEFINE, FULL_PRECISION_DEFINE  # noqa: E402
from ppcg_py.verify.dump import DumpError, compare_dumps, parse_dump  # noqa: E402
from ppcg_py.verify.tools import BuildError, run_tool  # noqa: E402

REFERENCE_TIMEOUT = 180.0   # seconds: gcc's seidel-2d and floyd-warshall take about 20 at LARGE

#: The mappings compared: a name and the ppcg-py options that give it.
WAYS: dict[str, tuple[str, ...]] = {
    # PPCG's mapping (today's until issue 22): its default sizes, arrays as declared
    "ppcg": ("--sizes", "ppcg", "--no-expand-arrays"),
    "device": (),                         # sizes chosen for the GPU, temporary arrays expanded
    "ppcg-py": (),                        # the same, under the name the kernel tables use
}
#: Every program's environment there: each CUDA module loaded when the context is made
#: (before main), not at its first launch inside PolyBench's timer (cuBLAS's are large)
RUN_ENV = {"CUDA_MODULE_LOADING": "EAGER"}
#: The way made of cuBLAS's calls (benchmarks/cublas_way.py), for the BLAS-shaped kernels.
CUBLAS = "cublas"


# -- here: the bundle -------------------------------------------------------------
def prepare(out: Path, dataset: str, ways: dict[str, tuple[str, ...]], kernels: list[str], jobs: int,
            prebuilt: dict[str, Path] | None = None, cublas: bool = False) -> int:
    """Every kernel compiled once per way into out/WAY/KERNEL/ (and with --timing into
    out/WAY/KERNEL/timed/), each `prebuilt` way's outputs copied (and instrumented),
    the cuBLAS programs written (`cublas`), and a manifest."""
    from ppcg_py.codegen.timing import standalone_timing_header
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    (out / TIMING_HEADER).write_text(standalone_timing_header())
    tasks = [(way, args, k, timed) for k in _kernels(kernels) for way, args in ways.items() for timed in (False, True)]
    failures: dict[str, str] = {}
    with futures.ThreadPoolExecutor(jobs) as pool:
        for (way, _, k, _), error in zip(tasks, pool.map(lambda t: _compile(out, dataset, *t), tasks)):
            if error:
                failures[f"{way}/{k.name}"] = error
    described = {w: list(a) for w, a in ways.items()}
    coverage: dict[str, list[str]] = {}
    for name, folder in (prebuilt or {}).items():
        described[name] = ["prebuilt", str(folder)]
        for k in _kernels(kernels):
            error = copy_prebuilt(folder / k.name, out / name / k.name, out / name / k.name / "timed")
            if error:
                failures[f"{name}/{k.name}"] = error
    if cublas:
        import cublas_way
        described[CUBLAS] = ["cuBLAS"]
        coverage[CUBLAS] = [k.name for k in _kernels(kernels) if k.name in cublas_way.KERNELS]
        for name in coverage[CUBLAS]:
            cublas_way.write_program(name, out / CUBLAS / name)
            timed = cublas_way.write_program(name, out / CUBLAS / name / "timed")
            timed.write_text("#define PPCG_PY_TIMING 1\n" + timed.read_text())
    manifest = {"dataset": dataset, "ways": described, "coverage": coverage,
                "kernels": [k.name for k in _kernels(kernels)], "failures": failures,
                "date": datetime.date.today().isoformat(), "commit": _commit(),
                "command": " ".join(sys.argv)}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    for name, error in failures.items():
        print(f"{name}: {error}", file=sys.stderr)
    return 1 if failures else 0


def _compile(out: Path, dataset: str, way: str, args: tuple[str, ...], kernel, timed: bool = False) -> str:
    folder = out / way / kernel.name / ("timed" if timed else "")
    folder.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "ppcg_py", *args, *(["--timing"] if timed else []), *compile_flags(kernel, dataset),
               "--output-dir", str(folder), str(source_path(kernel))]
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    return "" if proc.returncode == 0 else (proc.stderr.strip().splitlines() or ["failed"])[-1]


def _kernels(names: list[str]):
    return [k for k in KERNELS if not names or k.name in names]


def _commit() -> str:
    proc = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT,
                          check=False)
    return proc.stdout.strip() or "unknown"


# -- there: build, run, verify, time ----------------------------------------------
@dataclass
class Program:
    kernel: str
    way: str                      # "reference" or a way's name
    data_type: str
    exe: Path | None = None
    status: str = "PASS"
    error: str = ""
    times: list[float] = field(default_factory=list)
    dump_file: Path | None = None
    env: dict[str, str] = field(default_factory=lambda: {"PPCG_PY_DEVICE": "gpu"})   # a way's device code
    choices: list[tuple[str, str, float, float]] = field(default_factory=list)   # (scop, path, device, host)
    timed_exe: Path | None = None                 # the build whose lines time each kernel
    timings: list = field(default_factory=list)   # kernel_report.Timing per timed run
    predicted: list = field(default_factory=list)   # the timed runs' choices (PPCG_PY_VERBOSE)

    @property
    def median(self) -> float | None:
        return statistics.median(self.times) if self.times else None


def run(bundle: Path, out: Path, repeat: int, deadline: float, run_timeout: float, jobs: int,
        reference_repeat: int = 1, paths: str | None = None) -> int:
    """`paths`: a way whose programs also run as they choose at run time (`WAY@auto`,
    each SCoP's choice recorded) and on their host paths (`WAY@host`); every way's own
    runs time its device code (PPCG_PY_DEVICE=gpu)."""
    start = time.monotonic()
    manifest = json.loads((bundle / "manifest.json").read_text())
    dataset, ways = manifest["dataset"], list(manifest["ways"])
    work = Path("/tmp/gpu-ways")
    shutil.rmtree(work, ignore_errors=True)
    kernels = [k for k in KERNELS if k.name in manifest["kernels"]]
    programs = {(k.name, w): Program(k.name, w, k.data_type) for k in kernels for w in ["reference", *ways]}
    modes = [f"{paths}@{mode}" for mode in RUN_MODES] if paths in ways else []
    for k in kernels:
        for mode, env in zip(modes, RUN_MODES.values()):
            programs[(k.name, mode)] = Program(k.name, mode, k.data_type, env=dict(env))
    for name, error in manifest["failures"].items():
        way, kernel = name.split("/")
        programs[(kernel, way)].status, programs[(kernel, way)].error = "COMPILE_ERROR", error
    for way, covered in manifest.get("coverage", {}).items():    # a way for some kernels only
        for k in kernels:
            if k.name not in covered:
                programs[(k.name, way)].status = "N/A"
    with futures.ThreadPoolExecutor(jobs) as pool:
        list(pool.map(lambda p: _build(p, bundle, work, dataset), [p for p in programs.values() if "@" not in p.way]))
    for (kernel, way), p in programs.items():     # the run-time modes run their way's program
        if "@" in way:
            built = programs[(kernel, paths)]
            p.exe, p.status, p.error = built.exe, built.status, built.error
    _say(f"built in {time.monotonic() - start:.0f} s")
    with futures.ThreadPoolExecutor(max(1, jobs // 2)) as pool:     # references: CPU only, side by side
        list(pool.map(lambda p: _run_times(p, reference_repeat, REFERENCE_TIMEOUT, work),
                      [p for p in programs.values() if p.way == "reference"]))
    _say(f"references run by {time.monotonic() - start:.0f} s")
    for k in kernels:                                                # the GPU: one program at a time
        if time.monotonic() - start > deadline:
            for w in ways:
                programs[(k.name, w)].status = programs[(k.name, w)].status if programs[(k.name, w)].times \
                    else "NOT_RUN"
            continue
        for r in range(repeat):
            for w in [*ways, *modes]:
                p = programs[(k.name, w)]
                if p.status == "PASS" and p.exe is not None and len(p.times) == r:
                    _one_run(p, run_timeout, work, dump=(r == 0))
                if p.status == "PASS" and p.timed_exe is not None and "@" not in w:
                    _timed_run(p, run_timeout)
        _say(f"{k.name}: " + ", ".join(f"{w} {_fmt(programs[(k.name, w)].median)}" for w in ways))
    with futures.ProcessPoolExecutor(jobs) as pool:                 # compare the dumps
        checks = {key: pool.submit(_mismatch, programs[(key[0], "reference")].dump_file, p.dump_file, p.data_type)
                  for key, p in programs.items() if p.way != "reference" and p.status == "PASS" and p.dump_file}
        for key, check in checks.items():
            problem = check.result()
            if problem:
                programs[key].status, programs[key].error = "MISMATCH", problem
    out.mkdir(parents=True, exist_ok=True)
    _write(out, programs, kernels, ways, manifest, repeat, time.monotonic() - start)
    _write_kernels(out, programs, kernels, ways, manifest, repeat)
    if modes:
        _write_paths(out, programs, kernels, paths, manifest)
    return 0


def _build(p: Program, bundle: Path, work: Path, dataset: str) -> None:
    if p.status != "PASS":
        return
    kernel = next(k for k in KERNELS if k.name == p.kernel)
    folder = work / p.kernel / p.way
    folder.mkdir(parents=True, exist_ok=True)
    # full precision: PolyBench prints 2 decimals, where a fused multiply-add's last bit shows
    flags = [*compile_flags(kernel, dataset), "-DPOLYBENCH_TIME", f"-D{DUMP_DEFINE}", f"-D{FULL_PRECISION_DEFINE}"]
    exe = folder / "program"
    try:
        if p.way == "reference":
            run_tool(["gcc", "-O3", "-std=gnu99", *flags, str(source_path(kernel)), str(ROOT / POLYBENCH_C),
                      "-o", str(exe), "-lm"], timeout=300)
            p.exe = exe
            return
        generated = bundle / p.way / p.kernel
        defines = [f[2:] for f in flags if f.startswith("-D")]
        includes = [f[2:] for f in flags if f.startswith("-I")] + [str(ROOT / UTILITIES_DIR), str(bundle)]
        libraries = ["cublas"] if p.way == CUBLAS else []
        for source, target in ((generated, exe), (generated / "timed", folder / "timed" / "program")):
            if source.is_dir():
                target.parent.mkdir(parents=True, exist_ok=True)
                build_program("nvcc", sorted(source.glob("*.cu")), target,
                              c_sources=[*sorted(source.glob("*_host.c")), ROOT / POLYBENCH_C],
                              include_dirs=includes, defines=defines, timeout=300, libraries=libraries)
        p.exe = exe
        p.timed_exe = folder / "timed" / "program" if (generated / "timed").is_dir() else None
    except BuildError as exc:
        p.status, p.error = "BUILD_ERROR", (exc.stderr.strip().splitlines() or ["failed"])[-1][:200]


def _run_times(p: Program, repeat: int, timeout: float, work: Path) -> None:
    for r in range(repeat):
        if p.status != "PASS" or p.exe is None:
            return
        _one_run(p, timeout, work, dump=(r == 0))


def _one_run(p: Program, timeout: float, work: Path, dump: bool) -> None:
    dump_file = work / p.kernel / p.way.replace("@", "-") / "dump.txt"
    dump_file.parent.mkdir(parents=True, exist_ok=True)
    try:
        with open(dump_file if dump else os.devnull, "w") as err:
            proc = subprocess.run([str(p.exe)], stdout=subprocess.PIPE, stderr=err, text=True, timeout=timeout,
                                  check=False, env={**os.environ, **RUN_ENV, **p.env})
    except subprocess.TimeoutExpired:
        p.status, p.error = "TIMEOUT", f"a run took over {timeout:g} s"
        return
    seconds = parse_time(proc.stdout)
    if proc.returncode != 0 or seconds is None:
        p.status = "RUN_ERROR"
        p.error = f"exit status {proc.returncode}" + (": " + _tail(dump_file) if dump else "")
        return
    p.times.append(seconds)
    if dump:
        p.dump_file = dump_file
        p.choices = choices_in(dump_file.read_text(errors="replace"))


def _timed_run(p: Program, timeout: float) -> None:
    """One run of the timed build: its kernel times (and the model's predictions, which
    PPCG_PY_VERBOSE prints for ppcg-py's programs). Its failure fails the way too."""
    try:
        proc = subprocess.run([str(p.timed_exe)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              timeout=timeout, check=False, env={**os.environ, **RUN_ENV, **p.env, "PPCG_PY_VERBOSE": "1"})
    except subprocess.TimeoutExpired:
        p.status, p.error = "TIMEOUT", f"a timed run took over {timeout:g} s"
        return
    timing = kernel_report.parse_timing(proc.stderr)
    if proc.returncode != 0 or timing is None:
        p.status = "RUN_ERROR"
        p.error = f"timed build: exit status {proc.returncode}" + ("" if timing else ", no timing lines")
        return
    p.timings.append(timing)
    p.predicted = choices_in(proc.stderr)


def _write_kernels(out: Path, programs, kernels, ways: list[str], manifest: dict, repeat: int) -> None:
    """kernels.csv and kernels.md (benchmarks/kernel_report.py)."""
    from ppcg_py.gpu_targets import DEFAULT_GPU, GPUS, gpu_named
    name = _output(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"]).splitlines()
    card = gpu_named(name[0]) if name else None
    rows = []
    for k in kernels:
        for w in ways:
            p = programs[(k.name, w)]
            kernel_s = statistics.median(t.kernel_s for t in p.timings) if p.timings else None
            first = p.timings[0] if p.timings else None
            predicted = sum(c[2] for c in p.predicted) if p.predicted else None
            rows.append(kernel_report.Row(
                k.name, w, kernel_s if p.status == "PASS" else None, p.median if p.status == "PASS" else None,
                p.status if p.status != "PASS" or kernel_s is not None else "NOT_RUN",
                flops=first.flops if first else 0.0, dram_bytes=first.dram_bytes if first else 0.0,
                predicted_s=predicted,
                device_s=(statistics.median(t.kernel_s + t.copy_s for t in p.timings) if p.timings else None)))
    kernel_report.write_csv(out / "kernels.csv", rows)
    ours = next((w for w in ("ppcg-py", "device") if w in ways), ways[0])
    ppcg = next((w for w in ways if w.startswith("ppcg-0")), None)
    cublas = CUBLAS if CUBLAS in ways else None
    target = card or GPUS[DEFAULT_GPU]
    lines = [f"# Kernel times: PolyBench/C at {manifest['dataset']}, {', '.join(ways)}", "",
             f"- GPU: {name[0] if name else 'unknown'} (peaks used for the roofline: {target.name}, "
             f"{target.fp64_flops / 1e12:.3g}/{target.fp32_flops / 1e12:.3g} TFLOP/s FP64/FP32, "
             f"{target.dram_bandwidth / 1e12:.3g} TB/s)",
             f"- generated by ppcg-py {manifest['commit']} on {manifest['date']}: `{manifest['command']}`",
             f"- run: `{' '.join(sys.argv)}`",
             "- ways: " + "; ".join(f"{w}: `{' '.join(manifest['ways'][w]) or '(defaults)'}`" for w in ways),
             f"- kernels: the sum of the program's kernel times (CUDA events around each launch, or around "
             f"cuBLAS's calls), median of {repeat} runs of the timed build; programs: PolyBench's timer in the "
             "untimed build, median",
             "- roofline bound: ppcg-py's counted floating-point operations at the card's peak or its "
             "compulsory DRAM bytes at its bandwidth, whichever is longer (counts by boxes: upper bounds for "
             "triangular loops); share: bound / the way's kernel time", ""]
    lines += kernel_report.table(rows, ways, target, {k.name: k.data_type for k in kernels}, ours, ppcg, cublas)
    (out / "kernels.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def _tail(path: Path) -> str:
    try:
        lines = [line for line in path.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return ""
    return lines[-1][:200] if lines else ""


def _mismatch(expected: Path | None, actual: Path, data_type: str) -> str:
    if expected is None:
        return ""                                # no reference dump: nothing to compare with
    try:
        want, got = parse_dump(expected.read_text()), parse_dump(actual.read_text())
    except DumpError as exc:
        return f"dump: {exc}"
    rtol, atol = GPU_TOLERANCES[data_type]
    problems = compare_dumps(want, got, rtol=rtol, atol=atol)
    return problems[0] if problems else ""


SANITIZER_TOOLS = ("memcheck", "racecheck", "synccheck")


def sanitize(bundle: Path, out: Path, jobs: int, timeout: float) -> int:
    """compute-sanitizer's memcheck, racecheck (shared-memory hazards) and synccheck on
    every program of the bundle: one summary line each, and the full logs."""
    manifest = json.loads((bundle / "manifest.json").read_text())
    work = Path("/tmp/gpu-sanitize")
    shutil.rmtree(work, ignore_errors=True)
    programs = [Program(k.name, w, k.data_type) for k in KERNELS if k.name in manifest["kernels"]
                for w in manifest["ways"] if f"{w}/{k.name}" not in manifest["failures"]]
    with futures.ThreadPoolExecutor(jobs) as pool:
        list(pool.map(lambda p: _build(p, bundle, work, manifest["dataset"]), programs))
    out.mkdir(parents=True, exist_ok=True)
    lines = []
    for p in programs:
        for tool in SANITIZER_TOOLS:
            if p.exe is None:
                lines.append(f"{p.kernel} {p.way} {tool}: {p.status}: {p.error}")
                (out / "sanitizer.txt").write_text("\n".join(lines) + "\n")
                continue
            command = ["compute-sanitizer", f"--tool={tool}", *(["--racecheck-report=all"] if tool == "racecheck" else []),
                       str(p.exe)]
            try:
                proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
                text = proc.stdout + proc.stderr
            except subprocess.TimeoutExpired:
                text = f"timed out after {timeout:g} s"
            if "ERROR SUMMARY: 0 errors" not in text:
                (out / f"sanitize-{p.kernel}-{p.way}-{tool}.log").write_text(text[-20000:])
            summary = [line for line in text.splitlines() if "ERROR SUMMARY" in line or "RACECHECK SUMMARY" in line]
            lines.append(f"{p.kernel} {p.way} {tool}: {summary[-1].strip('= ') if summary else text.strip()[-200:]}")
            _say(lines[-1])
            (out / "sanitizer.txt").write_text("\n".join(lines) + "\n")    # as it goes: a cut run keeps it
    return 0


def _write(out: Path, programs, kernels, ways: list[str], manifest: dict, repeat: int, seconds: float) -> None:
    gpu = _output(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])
    rows = []
    for k in kernels:
        ref = programs[(k.name, "reference")]
        row = {"kernel": k.name, "reference_s": ref.median}
        for w in ways:
            p = programs[(k.name, w)]
            ok = p.status == "PASS" and p.median is not None
            row[f"{w}_s"] = p.median if ok else None
            row[f"{w}_status"] = p.status if p.status != "PASS" or p.median is not None else "NOT_RUN"
            row[f"{w}_error"] = p.error
            row[f"{w}_times"] = " ".join(f"{t:.6f}" for t in p.times)
        rows.append(row)
    with open(out / "results.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    lines = [f"# PolyBench/C at {manifest['dataset']} on a GPU: {', '.join(ways)}", "",
             f"- date: {datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')}",
             f"- GPU: {gpu}", f"- machine: {platform.node()} {platform.machine()}, {os.cpu_count()} CPUs",
             f"- generated by ppcg-py {manifest['commit']} on {manifest['date']}: `{manifest['command']}`",
             f"- run: `{' '.join(sys.argv)}` ({seconds:.0f} s)",
             f"- ways: " + "; ".join(f"{w}: `ppcg-py {' '.join(manifest['ways'][w]) or '(defaults)'}`" for w in ways),
             f"- times: median of {repeat} runs of PolyBench's timed region (device allocation, transfers and "
             "kernels; the CUDA context is created before main), ways interleaved run by run; reference: "
             "gcc -O3 on the host CPU, run side by side with other references (`--reference-repeat` runs)",
             "- each program's first run dumps its arrays; compared with gcc's within (1e-6, 1e-9) for double",
             ""]
    head = "| kernel | gcc -O3 (s) | " + " | ".join(f"{w} (s) | {w} speedup" for w in ways)
    if len(ways) > 1:
        head += f" | {ways[-1]} / {ways[0]} |"
    lines += [head, "|" + " --- |" * (head.count("|") - 1)]
    for row in rows:
        cells = [row["kernel"], _fmt(row["reference_s"])]
        for w in ways:
            t = row[f"{w}_s"]
            cells += [_fmt(t) if t is not None else f"**{row[f'{w}_status']}**",
                      _fmt(row["reference_s"] / t) if t and row["reference_s"] else ""]
        if len(ways) > 1:
            first, last = row[f"{ways[0]}_s"], row[f"{ways[-1]}_s"]
            cells.append(f"{first / last:.2f}" if first and last else "")
        lines.append("| " + " | ".join(cells) + " |")
    ratios = [row[f"{ways[0]}_s"] / row[f"{ways[-1]}_s"] for row in rows
              if len(ways) > 1 and row[f"{ways[0]}_s"] and row[f"{ways[-1]}_s"]]
    if ratios:
        lines += ["", f"Geometric mean of {ways[-1]} over {ways[0]} (time ratio, >1: faster): "
                      f"{statistics.geometric_mean(ratios):.3f} over {len(ratios)} kernels"]
    problems = [f"- {row['kernel']} {w}: {row[f'{w}_status']}: {row[f'{w}_error']}" for row in rows for w in ways
                if row[f"{w}_status"] not in ("PASS", "N/A")]
    problems += [f"- {k.name} gcc reference: {programs[(k.name, 'reference')].status}: "
                 f"{programs[(k.name, 'reference')].error}" for k in kernels
                 if programs[(k.name, "reference")].median is None]
    if problems:
        lines += ["", "Not passed:", *problems]
    (out / "results.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


# the run-time modes of a program with host paths: as it chooses (each choice printed),
# and every SCoP on the host
RUN_MODES = {"auto": {"PPCG_PY_VERBOSE": "1"}, "host": {"PPCG_PY_DEVICE": "cpu"}}
_CHOICE = re.compile(r"^ppcg-py: (.*): on the (device|host) \((.*?); predicted: device (\S+) s, host (\S+) s\)$",
                     re.M)


def choices_in(stderr: str) -> list[tuple[str, str, float, float]]:
    """Each SCoP's choice as PPCG_PY_VERBOSE prints it, first run of each SCoP only:
    (scop, path, predicted device seconds, predicted host seconds)."""
    seen: dict[str, tuple[str, str, float, float]] = {}
    for m in _CHOICE.finditer(stderr):
        seen.setdefault(m.group(1), (m.group(1), m.group(2), float(m.group(4)), float(m.group(5))))
    return list(seen.values())


def _write_paths(out: Path, programs, kernels, way: str, manifest: dict) -> None:
    """paths.md and paths.csv: per program, the path each SCoP took as it chose at run time,
    its time beside its device code's, its host path's and gcc's, and the model's predictions."""
    rows = []
    for k in kernels:
        gcc = programs[(k.name, "reference")].median
        device, auto, host = (programs[(k.name, w)] for w in (way, f"{way}@auto", f"{way}@host"))
        taken = "/".join(sorted({c[1] for c in auto.choices})) or "-"
        predicted = "; ".join(f"{c[2]:.3g} / {c[3]:.3g}" for c in auto.choices)
        check = ""
        if auto.median is not None and gcc is not None and auto.median > gcc:
            check = "SLOWER_THAN_GCC"
        if device.median is not None and host.median is not None and auto.choices:
            faster = "device" if device.median < host.median else "host"
            if taken in ("device", "host") and taken != faster:
                check = (check + " " if check else "") + f"{faster.upper()}_FASTER"
        rows.append({"kernel": k.name, "path": taken, "auto_s": auto.median, "device_s": device.median,
                     "host_path_s": host.median, "gcc_s": gcc, "predicted_device_host_s": predicted,
                     "check": check or ("PASS" if auto.median is not None else auto.status)})
    with open(out / "paths.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    lines = [f"# Where each program runs, chosen at run time: PolyBench/C at {manifest['dataset']}", "",
             f"- way: {way} (`ppcg-py {' '.join(manifest['ways'][way]) or '(defaults)'}`), built with nvcc "
             "-Xcompiler -fopenmp; its runs: as it chooses (`auto`), its device code (PPCG_PY_DEVICE=gpu), its "
             "host paths (PPCG_PY_DEVICE=cpu, OpenMP on every CPU); gcc -O3 on the original",
             "- predicted: the model's seconds for the device path / the host path, per SCoP (PPCG_PY_VERBOSE)",
             "", "| kernel | path taken | auto (s) | device (s) | host path (s) | gcc -O3 (s) | predicted device / "
             "host (s) | check |", "|" + " --- |" * 8]
    for r in rows:
        lines.append(f"| {r['kernel']} | {r['path']} | {_fmt(r['auto_s'])} | {_fmt(r['device_s'])} | "
                     f"{_fmt(r['host_path_s'])} | {_fmt(r['gcc_s'])} | {r['predicted_device_host_s']} | "
                     f"{r['check']} |")
    slower = [r["kernel"] for r in rows if "SLOWER_THAN_GCC" in r["check"]]
    lines += ["", f"Slower than gcc -O3: {', '.join(slower) or 'none'}; the faster path not taken: "
              f"{', '.join(r['kernel'] for r in rows if 'FASTER' in r['check']) or 'none'}"]
    (out / "paths.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.3g}" if value < 100 else f"{value:.0f}"


def _output(argv: list[str]) -> str:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=20, check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _say(text: str) -> None:
    print(text, flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare", help="compile every kernel once per way (here, with ppcg-py)")
    p.add_argument("--out", type=Path, default=ROOT / "out" / "gpu-bundle")
    p.add_argument("--dataset", default="LARGE")
    p.add_argument("--way", action="append", default=[], metavar="NAME or NAME=ARGS",
                   help="a way: one of " + ", ".join(WAYS) + ", or a name and its ppcg-py options, e.g. "
                        "'reductions=--reductions' (repeatable) [" + ", ".join(WAYS) + "]")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--skip", default="", help="comma list of kernels left out (say why in the report)")
    p.add_argument("--prebuilt", action="append", default=[], metavar="NAME=FOLDER",
                   help="a way made of another tool's outputs, FOLDER/KERNEL/KERNEL_host.cu ... (e.g. real "
                        "PPCG's at the same dataset), timed by events put around its launches (repeatable)")
    p.add_argument("--cublas", action="store_true",
                   help="a way made of cuBLAS's calls for the BLAS-shaped kernels (benchmarks/cublas_way.py)")
    p.add_argument("kernels", nargs="*")
    r = sub.add_parser("run", help="build, run, verify and time the bundle (on the GPU machine)")
    r.add_argument("--bundle", type=Path, default=ROOT / "out" / "gpu-bundle")
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--repeat", type=int, default=3)
    r.add_argument("--deadline", type=float, default=480, help="seconds after which no kernel starts")
    r.add_argument("--run-timeout", type=float, default=20)
    r.add_argument("--jobs", type=int, default=os.cpu_count() or 4)
    r.add_argument("--paths", metavar="WAY",
                   help="also run WAY's programs as they choose at run time and on their host paths, and "
                        "write paths.md (issue: every program at least gcc's speed, the faster path taken)")
    r.add_argument("--reference-repeat", type=int, default=1,
                   help="runs of each gcc -O3 reference (it only gives the speedup's numerator) [1]")
    z = sub.add_parser("sanitize", help="compute-sanitizer on every program of a (small) bundle")
    z.add_argument("--bundle", type=Path, default=ROOT / "out" / "gpu-bundle-small")
    z.add_argument("--out", type=Path, required=True)
    z.add_argument("--jobs", type=int, default=os.cpu_count() or 4)
    z.add_argument("--timeout", type=float, default=60)
    args = parser.parse_args()
    if args.command == "sanitize":
        return sanitize(args.bundle, args.out, args.jobs, args.timeout)
    if args.command == "prepare":
        ways = dict(WAYS) if not args.way else {}
        for text in args.way:
            name, given, options = text.partition("=")
            ways[name] = tuple(options.split()) if given else WAYS[name]
        kernels = args.kernels or [k.name for k in KERNELS if k.name not in args.skip.split(",")]
        prebuilt = {name: Path(folder).resolve() for name, _, folder in (t.partition("=") for t in args.prebuilt)}
        return prepare(args.out, args.dataset, ways, kernels, args.jobs, prebuilt, args.cublas)
    return run(args.bundle, args.out, args.repeat, args.deadline, args.run_timeout, args.jobs, args.reference_repeat,
               args.paths)


if __name__ == "__main__":
    sys.exit(main())
