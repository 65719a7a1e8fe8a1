"""Make dependency files (-M, -MD, -MF, -MT, as gcc's): ppcg-py as a step in a C build.

The rule's targets are the files a run writes (whatever the target's names for
them), its prerequisites the input and every header the C preprocessor read for
it, each header also with an empty rule of its own (gcc's -MP) so that deleting a
header does not stop Make.
"""
from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from .options import Options

__all__ = ["DependencyRequest", "output_paths", "rule_and_path"]


@dataclass(frozen=True)
class DependencyRequest:
    """What the command line asked for: `only` (-M: the rule instead of the outputs),
    `with_outputs` (-MD), `file` (-MF; default: stdout for -M, the first output's name
    and `.d` for -MD: NAME_host.cu.d) and `targets` (-MT; default: the output files)."""

    only: bool = False
    with_outputs: bool = False
    file: str | None = None
    targets: tuple[str, ...] = ()

    @property
    def wanted(self) -> bool:
        return self.only or self.with_outputs


def output_paths(names: Iterable[str], output_dir: str) -> list[str]:
    """The outputs' paths as a Makefile in the current directory names them."""
    return [name if output_dir in ("", ".") else os.path.join(output_dir, name) for name in names]


def rule_and_path(request: DependencyRequest, input_path: str, options: Options,
                  outputs: list[str]) -> tuple[str, str | None]:
    """The rule's text, and the file to write it to (None: stdout)."""
    from .extract.preprocess import dependency_rule   # loads isl with the extract package
    quote = not request.targets       # -MT targets are written as given, as gcc does
    rule = dependency_rule(input_path, request.targets or tuple(outputs), options.include_dirs,
                           options.defines, quote=quote)
    if request.file is not None:
        return rule, request.file
    if request.only:
        return rule, None
    return rule, outputs[0] + ".d"   # NAME_host.cu.d: NAME_host.d is gcc -MD's for NAME_host.o
