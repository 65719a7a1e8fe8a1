"""A fuzzing campaign: many cases in worker processes, a summary, shrunk failures.

A case is named `SEED:INDEX`; its program and options depend on that name
only, so any case can be replayed alone (`--replay SEED:INDEX`).
"""
from __future__ import annotations

import json
import multiprocessing
import resource
import shutil
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from . import corpus
from .generate import Features, generate
from .options import random_options
from .patterns import PATTERNS, patterns
from .program import Program
from .render import render, render_library
from .runner import AS_CXX, ON_HOST, OPENCL_MATH, ROOT, Outcome, data_type_of, run_case
from .shrink import shrink


@dataclass(frozen=True)
class Settings:
    seed: str = "1"
    count: int = 1000
    start: int = 0
    jobs: int = 2
    nvcc_every: int = 25
    out: Path = ROOT / "out" / "fuzz"
    root: Path = ROOT
    keep_passing: bool = False
    shrink: bool = True
    shrink_budget: float = 600
    save: bool = False
    features: Features = Features()
    cpu_limit: int = 60
    target: str | None = None       # every case for this target (options.TARGETS), else drawn


def case_id(settings: Settings, index: int) -> str:
    return f"{settings.seed}:{index}"


DEFAULT_FEATURES = Features()


def make_case(name: str, features: Features = DEFAULT_FEATURES,
              target: str | None = None) -> tuple[Program, tuple[str, ...]]:
    program = generate(name, features)
    return program, random_options(name, program, target)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run_index(job: tuple[Settings, int]) -> dict:
    settings, index = job
    name = case_id(settings, index)
    cpu_before = _children_cpu()
    workdir = settings.out / "cases" / name.replace(":", "_")
    found: list[str] = []
    try:
        program, args = make_case(name, settings.features, settings.target)
        found = sorted(patterns(program))
        use_nvcc = settings.nvcc_every > 0 and index % settings.nvcc_every == 0
        outcome = run_case(render(program), program, args, workdir, use_nvcc=use_nvcc, root=settings.root,
                           cpu_limit=settings.cpu_limit)
    except Exception as exc:  # noqa: BLE001 - a fuzzer bug must not stop the campaign
        outcome, args, use_nvcc = Outcome("generator", type(exc).__name__, repr(exc)), (), False
    if not outcome.failed and not settings.keep_passing:
        shutil.rmtree(workdir, ignore_errors=True)
    return {"case": name, "index": index, "verdict": outcome.verdict, "detail": outcome.detail,
            "seconds": round(outcome.seconds, 2), "cpu_seconds": round(_children_cpu() - cpu_before, 2),
            "timings": {k: round(v, 2) for k, v in outcome.timings.items()}, "args": list(args), "nvcc": use_nvcc,
            "message": outcome.message[:4000], "workdir": str(workdir), "patterns": found}


def _shrink_case(job: tuple[Settings, dict]) -> dict:
    settings, record = job
    name = record["case"]
    program, args = make_case(name, settings.features, settings.target)
    target = (record["verdict"],
              record["detail"] if record["verdict"] in ("ice", "bad-error", "crash", "mismatch") else "")
    workdir = settings.out / "shrink" / name.replace(":", "_")
    counter = [0]

    def still_fails(case) -> bool:
        counter[0] += 1
        prog, opts = case
        out = run_case(render(prog), prog, opts, workdir / f"try{counter[0] % 2}", use_nvcc=record["nvcc"],
                       root=settings.root, cpu_limit=settings.cpu_limit)
        return out.signature == target

    small, small_args = shrink((program, args), still_fails, budget_s=settings.shrink_budget)
    text = render(small)
    final = run_case(text, small, small_args, workdir / "final", use_nvcc=record["nvcc"], root=settings.root,
                     cpu_limit=settings.cpu_limit)
    result = {"case": name, "verdict": final.verdict, "detail": final.detail, "args": list(small_args),
              "tries": counter[0], "source": text, "data_type": data_type_of(small), "saved": None}
    if settings.save and final.failed:
        known = {r.signature for r in corpus.load_all()}
        if (final.verdict, final.detail) not in known or final.verdict == "mismatch":
            path = corpus.save(text, small_args, data_type_of(small), final, name, library=render_library(small))
            result["saved"] = str(path)
    return result


def _line(done: int, total: int, record: dict) -> str:
    detail = f" {record['detail']}" if record["detail"] else ""
    args = " ".join(record["args"])
    return (f"[{done:>5}/{total}] {record['verdict']:<10} {record['seconds']:>6.1f}s "
            f"{record['case']:<10} {args[:70]}{detail[:80]}")


def run(settings: Settings) -> dict:
    """Run the campaign, print progress and a summary, return the summary."""
    settings.out.mkdir(parents=True, exist_ok=True)
    jobs = [(settings, settings.start + k) for k in range(settings.count)]
    records: list[dict] = []
    started = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(settings.jobs) as pool:
        for record in pool.imap_unordered(_run_index, jobs):
            records.append(record)
            print(_line(len(records), settings.count, record), flush=True)
    wall = time.perf_counter() - started
    records.sort(key=lambda r: r["index"])
    summary = summarise(records, wall)
    failures = [r for r in records if r["verdict"] not in ("pass", "rejection")]
    if failures and settings.shrink:
        first: dict[tuple, dict] = {}
        for r in failures:
            first.setdefault((r["verdict"], r["detail"]), r)
        print(f"shrinking {len(first)} distinct failure(s) ...", flush=True)
        with multiprocessing.get_context("spawn").Pool(settings.jobs) as pool:
            summary["shrunk"] = pool.map(_shrink_case, [(settings, r) for r in first.values()])
        for s in summary["shrunk"]:
            print(f"  {s['case']}: {s['verdict']} {s['detail']} after {s['tries']} tries"
                  + (f" -> {s['saved']}" if s["saved"] else ""), flush=True)
    (settings.out / "summary.json").write_text(json.dumps({**summary, "records": records}, indent=1))
    print(format_summary(summary))
    return summary


def summarise(records: list[dict], wall: float) -> dict:
    verdicts = Counter(r["verdict"] for r in records)
    reasons = Counter(r["detail"] for r in records if r["verdict"] == "rejection")
    failures = [{k: r.get(k) for k in ("case", "verdict", "detail", "args", "workdir", "patterns")}
                for r in records if r["verdict"] not in ("pass", "rejection")]
    seconds = [r["seconds"] for r in records]
    cpu = [r.get("cpu_seconds", 0.0) for r in records]
    found = Counter(name for r in records for name in r.get("patterns", ()))
    return {"programs": len(records), "verdicts": dict(verdicts), "rejections": dict(reasons.most_common()),
            "patterns": {name: found[name] for name in PATTERNS},
            "pass_as_cxx": sum(r["verdict"] == "pass" and r["detail"] == AS_CXX for r in records),
            "pass_on_host": sum(r["verdict"] == "pass" and r["detail"] == ON_HOST for r in records),
            "pass_opencl_math": sum(r["verdict"] == "pass" and r["detail"] == OPENCL_MATH for r in records),
            "failures": failures, "wall_seconds": round(wall, 1),
            "mean_seconds_per_program": round(sum(seconds) / max(1, len(seconds)), 2),
            "mean_cpu_seconds_per_program": round(sum(cpu) / max(1, len(cpu)), 2)}


def format_summary(summary: dict) -> str:
    v = summary["verdicts"]
    lines = [f"programs: {summary['programs']}  pass: {v.get('pass', 0)}  rejected: {v.get('rejection', 0)}  "
             f"failed: {sum(n for k, n in v.items() if k not in ('pass', 'rejection'))}",
             f"wall: {summary['wall_seconds']} s, mean per program {summary['mean_seconds_per_program']} s "
             f"(CPU {summary.get('mean_cpu_seconds_per_program', 0)} s)"]
    if summary.get("pass_as_cxx"):
        lines.append(f"  of the passes, {summary['pass_as_cxx']} differ from C and equal the original built "
                     "as C++ (the device's float math overloads)")
    if summary.get("pass_on_host"):
        lines.append(f"  of the passes, {summary['pass_on_host']} left SCoPs on the host after running out of time")
    if summary.get("pass_opencl_math"):
        lines.append(f"  of the passes, {summary['pass_opencl_math']} differ from C only on the OpenCL runtime, whose "
                     "kernels call its math functions (the same compilation for CUDA matches C)")
    for verdict, n in sorted(v.items()):
        if verdict not in ("pass", "rejection"):
            lines.append(f"  {verdict}: {n}")
    if summary.get("patterns"):
        lines.append("programs with each pattern: " + ", ".join(f"{k} {n}" for k, n in summary["patterns"].items()))
    if summary["rejections"]:
        lines.append("rejection reasons:")
        lines += [f"  {n:>4}  {reason}" for reason, n in summary["rejections"].items()]
    if summary["failures"]:
        lines.append("failing cases:")
        lines += [f"  {f['case']}: {f['verdict']} {f['detail']}  ({f['workdir']})"
              + (f"\n    patterns: {' '.join(f['patterns'])}" if f.get("patterns") else "")
              for f in summary["failures"][:40]]
    return "\n".join(lines)


def settings_dict(settings: Settings) -> dict:
    return {k: str(v) for k, v in asdict(settings).items()}
