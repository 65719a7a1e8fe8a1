"""What the two plans of one SCoP share.

A GPU target schedules each SCoP for the device and again, for its host path, as the
C target does (stages.py). Both start from the same dependences, and where they ask
isl's scheduler the same question (same dependences, same fixed variables, no extra
constraints) they get the same schedule: isl's scheduler is most of the compile time
(2.8 of heat-3d's 3 seconds at LARGE), so each is computed once.

Results are kept by the identity of the objects they were computed from; an entry
holds those objects, so that their ids cannot be reused while it lives, and only the
last few entries are kept.
"""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


class Memo:
    """The last `size` results of one computation, by the objects and values it used."""

    def __init__(self, size: int = 8) -> None:
        self.size = size
        self._entries: OrderedDict[tuple, tuple[tuple[Any, ...], Any]] = OrderedDict()

    def get(self, objects: tuple[Any, ...], values: tuple, compute: Callable[[], T]) -> T:
        key = (tuple(id(o) for o in objects), values)
        entry = self._entries.get(key)
        if entry is not None and all(a is b for a, b in zip(entry[0], objects)):
            self._entries.move_to_end(key)
            return entry[1]
        result = compute()
        self._entries[key] = (objects, result)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)
        return result
