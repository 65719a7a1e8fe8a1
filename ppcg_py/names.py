"""Generated names that cannot clash with the user's identifiers."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Names:
    """Prefixes for generated identifiers, chosen away from the user's names."""

    iterator: str = "c"     # loop iterators c0, c1, ...
    block: str = "b"        # block ids b0, b1
    thread: str = "t"       # thread ids t0, t1, t2
    device: str = "dev_"    # device copies dev_A
    register: str = "reg_"  # the C target's blocks of an array kept in registers: reg_C

    @classmethod
    def avoiding(cls, used: frozenset[str]) -> "Names":
        def free(prefix: str, numbered: bool) -> str:
            candidate = prefix
            while any(_clashes(candidate, name, numbered) for name in used):
                candidate += "_"
            return candidate
        return cls(free("c", True), free("b", True), free("t", True), free("dev_", False), free("reg_", False))

    def iterators(self, n: int) -> list[str]:
        return [f"{self.iterator}{k}" for k in range(n)]


def _clashes(prefix: str, name: str, numbered: bool) -> bool:
    if not name.startswith(prefix):
        return False
    rest = name[len(prefix):]
    return rest.isdigit() if numbered else True


def fresh_name(base: str, taken: set[str], *, numbered: bool = False) -> str:
    """`base`, or `base_1`, `base_2`, ... (always numbered with `numbered`): the first
    not in `taken`, which it joins."""
    k = 1 if numbered else 0
    name = f"{base}_{k}" if k else base
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    taken.add(name)
    return name
