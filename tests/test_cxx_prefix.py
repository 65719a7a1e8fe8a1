"""The C++ check's precompiled system-header prefix (extract/cxx_prefix.py): which lines
it takes, that g++ really uses it, that the check's verdict is the same with it and
without it, and that a changed header, an unusable folder or a build under way elsewhere
never change a verdict."""
from __future__ import annotations

import fcntl
import shutil
import subprocess
from pathlib import Path

import pytest

from ppcg_py.extract import cxx_prefix
from ppcg_py.extract.c_only import rejected_as_cxx

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="no g++: the C++ check is the AST's alone")

ROOT = Path(__file__).resolve().parents[1]
TRISOLV = ROOT / "polybench" / "linear-algebra" / "solvers" / "trisolv" / "trisolv.c"
FLAGS = ("-std=gnu++17", "-w")


def lines_of(text: str) -> list[bytes]:
    return text.encode().split(b"\n")


@pytest.mark.parametrize("text, length, directives", [
    ("/*\n * a licence\n */\n#include <stdio.h>\n#include <math.h>\n\n#include \"mine.h\"\nint x;", 5,
     "#include <stdio.h>\n#include <math.h>\n"),
    ("#define _GNU_SOURCE\n#include <stdlib.h>  /* malloc */\n// note\n#include <string.h>\nint x;", 4,
     "#define _GNU_SOURCE\n#include <stdlib.h>\n#include <string.h>\n"),
    ("#include <stdio.h>\n#define N 10\nint a[N];", 1, "#include <stdio.h>\n"),   # ends after the last include
    ("#define X/**/1\n#include <stdio.h>", 2, "#define X 1\n#include <stdio.h>\n"),   # a comment is a space
    ("int x;\n#include <stdio.h>", 0, ""),                                # code first
    ("#include \"mine.h\"\n#include <stdio.h>", 0, ""),                   # searched beside the input
    ("#include <stdio.h>\n#if X\n#include <math.h>\n#endif", 1, "#include <stdio.h>\n"),      # no conditionals
    ("#include <stdio.h>\n#define S \"text\"\n#include <math.h>", 1, "#include <stdio.h>\n"),   # no quotes
    ("#include <stdio.h>\n#define F(x) \\\n  (x)\n#include <math.h>", 1, "#include <stdio.h>\n"),  # no continuations
    ("#include <stdio.h> /* opens\n */ int x;", 0, ""),                   # a comment the prefix would cut
    ("int y; /* c */\n#include <stdio.h>", 0, ""),
])
def test_the_prefix_is_the_leading_includes(text, length, directives):
    assert cxx_prefix.system_prefix(lines_of(text)) == (length, directives.encode())


def test_polybench_files_share_one_prefix():
    found = set()
    for source in sorted((ROOT / "polybench").glob("*/**/*.c")):
        if source.parent.name == "utilities":
            continue
        lines = source.read_bytes().split(b"\n")
        count, directives = cxx_prefix.system_prefix(lines)
        assert lines[count - 1] == b"#include <math.h>", source
        found.add(directives)
    assert len(found) == 1


def test_g_plus_plus_uses_the_precompiled_header(tmp_path, monkeypatch):
    monkeypatch.setenv("PPCG_PY_CACHE_DIR", str(tmp_path / "cache"))
    header = cxx_prefix.precompiled(shutil.which("g++"), FLAGS, b"#include <stdio.h>\n#include <math.h>\n")
    assert header is not None and Path(header + ".gch").is_file()
    again = cxx_prefix.precompiled(shutil.which("g++"), FLAGS, b"#include <stdio.h>\n#include <math.h>\n")
    assert again == header
    done = subprocess.run(["g++", "-fsyntax-only", "-x", "c++", *FLAGS, "-Winvalid-pch", "-H", "-include", header,
                           "-"], input=b"int main() { return (int) sqrt(4.0); }\n", capture_output=True)
    assert done.returncode == 0, done.stderr.decode()
    assert f"! {header}.gch".encode() in done.stderr          # -H marks a precompiled header used with '!'


SOURCES = {
    "accepted": ("#include <stdio.h>\n#include <math.h>\n", "int main(void) { printf(\"%f\", sqrt(2.0)); return 0; }\n",
                 False),
    "bool_parameter": ("#include <stdlib.h>\n", "static int truth(_Bool b) { return b; }\nint main(void) "
                       "{ return truth(1); }\n", True),
    "keyword": ("#include <math.h>\n", "int main(void) { int new = 1; return new; }\n", True),
    "defined_before": ("#define _GNU_SOURCE\n#include <math.h>\n", "int main(void) { return (int) M_PI; }\n", False),
    "abs_of_float": ("#include <math.h>\n", "float abs(float x) { return x; }\nint main(void) { return 0; }\n", True),
}


@pytest.mark.parametrize("name", SOURCES)
def test_the_verdict_is_the_same_with_and_without_the_cache(name, tmp_path, monkeypatch):
    prefix, body, rejected = SOURCES[name]
    source = tmp_path / f"{name}.c"
    source.write_text(prefix + body)
    monkeypatch.setenv("PPCG_PY_CACHE_DIR", "")
    assert rejected_as_cxx(str(source)) is rejected
    monkeypatch.setenv("PPCG_PY_CACHE_DIR", str(tmp_path / "cache"))
    assert rejected_as_cxx(str(source)) is rejected            # builds the entry
    assert rejected_as_cxx(str(source)) is rejected            # uses it
    assert len(list((tmp_path / "cache" / "cxx-prefix").glob("*/prefix.h.gch"))) == 1


def test_a_changed_header_builds_the_entry_again(tmp_path, monkeypatch):
    monkeypatch.setenv("PPCG_PY_CACHE_DIR", str(tmp_path / "cache"))
    include = tmp_path / "include"
    include.mkdir()
    (include / "mine.h").write_text("#include <math.h>\nstatic int ok;\n")
    source = tmp_path / "uses.c"
    source.write_text("#include <mine.h>\nint main(void) { return ok; }\n")
    assert not rejected_as_cxx(str(source), (str(include),))
    (include / "mine.h").write_text("#include <math.h>\nstatic int ok, class;\n")   # C++ rejects `class`
    assert rejected_as_cxx(str(source), (str(include),))
    (include / "mine.h").write_text("#include <math.h>\nstatic int ok;\n")
    assert not rejected_as_cxx(str(source), (str(include),))
    (include / "math.h").write_text("static int class;\n")      # now found before the system's
    assert rejected_as_cxx(str(source), (str(include),))


def test_no_cache_where_the_folder_cannot_be_written(tmp_path, monkeypatch):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    monkeypatch.setenv("PPCG_PY_CACHE_DIR", str(blocker))
    assert cxx_prefix.precompiled(shutil.which("g++"), FLAGS, b"#include <stdio.h>\n") is None
    source = tmp_path / "k.c"
    source.write_text(SOURCES["keyword"][0] + SOURCES["keyword"][1])
    assert rejected_as_cxx(str(source))


def test_no_cache_while_another_process_builds_the_entry(tmp_path, monkeypatch):
    monkeypatch.setenv("PPCG_PY_CACHE_DIR", str(tmp_path / "cache"))
    prefix = b"#include <stdio.h>\n"
    entry = cxx_prefix.cache_folder("cxx-prefix") / cxx_prefix._entry_name(shutil.which("g++"), FLAGS, prefix)
    entry.mkdir(parents=True)
    with open(entry / "lock", "wb") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        assert cxx_prefix.precompiled(shutil.which("g++"), FLAGS, prefix) is None
    assert cxx_prefix.precompiled(shutil.which("g++"), FLAGS, prefix) is not None


def test_the_least_recently_used_entries_go(tmp_path, monkeypatch):
    monkeypatch.setenv("PPCG_PY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cxx_prefix, "KEPT_ENTRIES", 2)
    headers = [cxx_prefix.precompiled(shutil.which("g++"), FLAGS, f"#include <{h}>\n".encode())
               for h in ("stdio.h", "string.h", "limits.h")]
    assert all(headers)
    kept = {str(p) for p in (tmp_path / "cache" / "cxx-prefix").glob("*/prefix.h")}
    assert kept == set(headers[1:])


def test_a_failed_build_leaves_the_check_as_it_was(tmp_path, monkeypatch):
    monkeypatch.setenv("PPCG_PY_CACHE_DIR", str(tmp_path / "cache"))
    assert cxx_prefix.precompiled(shutil.which("g++"), FLAGS, b"#include <no_such_header.h>\n") is None
    source = tmp_path / "missing.c"
    source.write_text("#include <no_such_header.h>\nint main(void) { return 0; }\n")
    assert rejected_as_cxx(str(source))
