"""Aimed --hybrid campaign (as docs/results/fuzz-2026-11-29-hybrid.md): run from ROOT/tests."""
import subprocess, sys, time, json
from pathlib import Path
sys.path.insert(0, ".")
from fuzz.generate import Features, generate
from fuzz.options import random_options, _without_sizes
from fuzz.render import render
from fuzz.runner import run_case

root, seed0, count, out = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
out.mkdir(parents=True, exist_ok=True)
stats = {"programs": 0, "applies": 0, "buffers": 0, "pass": 0, "fail": [], "slow": [], "other": []}
for i in range(count):
    seed = f"{seed0}:{i}"
    program = generate(seed, Features(stencils=True, stencils_always=True, calls=False, external=False,
                                      scalar_flow=False, dynamic=False, structs=False, products=False,
                                      multi_scop=False, empty=False, member_calls=False))
    work = out / str(i)
    work.mkdir(exist_ok=True)
    (work / "prog.c").write_text(render(program))
    t = time.time()
    try:
        proc = subprocess.run([str(root / ".venv/bin/python"), "-m", "ppcg_py", "--hybrid", "-v", "--no-host-path",
                               "--timeout", "120", "prog.c", "-o", "probe.cu"], cwd=work, capture_output=True,
                              text=True, timeout=600, env={**__import__("os").environ, "PYTHONPATH": str(root)})
    except subprocess.TimeoutExpired:
        stats["slow"].append(seed); continue
    stats["programs"] += 1
    took = time.time() - t
    if took > 60:
        stats["slow"].append((seed, round(took, 1)))
    if "--hybrid: split tiles" not in proc.stderr:
        print(f"{seed} n/a {took:.1f}s", flush=True); continue
    stats["applies"] += 1
    stats["buffers"] += "reuse across the launch's steps" in proc.stderr
    args = [a for a in _without_sizes(list(random_options(seed, program, "cuda"))) if a != "--hybrid"] + ["--hybrid"]
    outcome = run_case(render(program), program, tuple(args), work, root=root)
    print(f"{seed} {outcome.verdict} {took:.1f}s {' '.join(args)}", flush=True)
    if outcome.verdict == "pass":
        stats["pass"] += 1
    elif outcome.failed:
        stats["fail"].append((seed, outcome.verdict, outcome.detail[:200]))
    else:
        stats["other"].append((seed, outcome.verdict, outcome.detail[:200]))
print(json.dumps(stats, indent=1))
