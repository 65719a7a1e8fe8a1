"""Saved reproducers in tests/regressions/: NAME.c plus NAME.json.

The JSON says how to replay the case and what a correct compiler does:

    {"args": ["--tile-sizes", "4"], "data_type": "double", "use_nvcc": false,
     "expect": "pass",                      # or "rejection"
     "reason": "fragment of the expected error",   # with "rejection"
     "xfail": "why it fails today, where the bug is" | null,
     "cpu_limit": 60,                       # CPU seconds ppcg-py may use
     "link": ["NAME_lib.c"],                # C files linked with every build (the functions
                                            # the program only declares), beside NAME.c
     "why": "what the bug was, once fixed",  # for the reader only
     "found": {"verdict": "mismatch", "detail": "", "seed": "7:12"}}

`replay` runs one saved case through the same runner as the fuzzer.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from .runner import Outcome, run_file

REGRESSIONS = Path(__file__).resolve().parents[1] / "regressions"


@dataclass(frozen=True)
class Regression:
    name: str
    source: Path
    args: tuple[str, ...]
    data_type: str
    use_nvcc: bool
    expect: str
    reason: str
    xfail: str | None
    found: dict
    cpu_limit: int = 60
    link: tuple[Path, ...] = ()

    @property
    def signature(self) -> tuple[str, str]:
        return (self.found.get("verdict", ""), self.found.get("detail", ""))


def load_all(folder: Path = REGRESSIONS) -> list[Regression]:
    cases = []
    for meta in sorted(folder.glob("*.json")):
        data = json.loads(meta.read_text())
        cases.append(Regression(meta.stem, meta.with_suffix(".c"), tuple(data.get("args", ())),
                                data.get("data_type", "double"), bool(data.get("use_nvcc", False)),
                                data.get("expect", "pass"), data.get("reason", ""), data.get("xfail"),
                                data.get("found", {}), int(data.get("cpu_limit", 60)),
                                tuple(folder / f for f in data.get("link", ()))))
    return cases


def save(source_text: str, args: tuple[str, ...], data_type: str, outcome: Outcome, seed: str, *,
         folder: Path = REGRESSIONS, xfail: str | None = None, library: str | None = None) -> Path:
    """Write NAME.c and NAME.json (and NAME_lib.c, the functions the program only
    declares, when `library` is given); NAME comes from the verdict and the content."""
    digest = hashlib.sha1((source_text + "\0".join(args) + (library or "")).encode()).hexdigest()[:8]
    name = f"fuzz_{outcome.verdict.replace('-', '_')}_{digest}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.c").write_text(source_text)
    link = []
    if library is not None:
        (folder / f"{name}_lib.c").write_text(library)
        link.append(f"{name}_lib.c")
    meta = {"args": list(args), "data_type": data_type, "use_nvcc": False, "expect": "pass",
            **({"link": link} if link else {}),
            "xfail": xfail if xfail is not None else f"found by the fuzzer: {outcome.verdict} "
                                                     f"{outcome.detail}".strip(),
            "found": {"verdict": outcome.verdict, "detail": outcome.detail, "seed": seed,
                      "message": outcome.message[:2000]}}
    (folder / f"{name}.json").write_text(json.dumps(meta, indent=2) + "\n")
    return folder / f"{name}.c"


def replay(case: Regression, workdir: Path, *, use_nvcc: bool | None = None) -> Outcome:
    return run_file(case.source, case.args, case.data_type, workdir,
                    use_nvcc=case.use_nvcc if use_nvcc is None else use_nvcc, cpu_limit=case.cpu_limit,
                    extra_c_sources=tuple(str(f) for f in case.link))
