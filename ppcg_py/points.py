"""Exact counts of the integer points of isl sets whose parameters have known values.

islpy comes without barvinok (no `card`), and isl's own `count_val` visits every
point (a gemm at LARGE has 1.3e9), so the performance model (benchmarks/model.py)
and the kernels' work at fixed parameters (schedule/gpu/work.py, `-v`) count here.
Each basic set of a disjoint decomposition becomes a system of integer constraints
`a . x + c >= 0` (parameters replaced by their values, existentially quantified
divisions lifted into variables of their own, which they determine). Then:

- a variable that an equality with a unit coefficient determines is substituted away
  (a bijection: the count is unchanged);
- the outer variables are enumerated, each between the bounds that Fourier-Motzkin
  elimination of the inner ones gives (a rational shadow: a superset of the values
  that have points, so enumeration misses none; a value without points adds 0);
- the two innermost are summed in closed form: for a fixed outer point, the
  innermost variable y (whose coefficients are all +-1) runs from max_k L_k(x) to
  min_k U_k(x), affine functions of the next variable x; between the integer
  points where two of them cross, or where an upper and a lower bound meet, the
  active bounds do not change and the count is an arithmetic series.

So the cost is the number of outer points (all but two dimensions) times a small
constant: gemm's 1.3e9 statement instances are 1,000 sums. `count_by_prefix` keeps
the counts apart per value of the first dimensions (a kernel's work per host-loop
iteration, benchmarks/model.py).
"""
from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence

import islpy as isl

Constraint = tuple[tuple[int, ...], int]      # (a, c): a . x + c >= 0
_MEMO_LIMIT = 200_000                           # counts of inner subproblems kept at once


class Unbounded(Exception):
    """A variable has no lower or upper bound: the set is not a polytope."""


def _ceil_div(a: int, b: int) -> int:
    return -((-a) // b)


def _normalized(coeffs: Sequence[int], const: int) -> Constraint | None | bool:
    """The constraint divided by the gcd of its coefficients, its constant rounded down
    (the same integer points); True: always holds, False: never."""
    g = 0
    for a in coeffs:
        g = math.gcd(g, a)
    if g == 0:
        return const >= 0
    return tuple(a // g for a in coeffs), const // g


class System:
    """Integer points of `a . x + c >= 0` for every (a, c) in `constraints` and
    `a . x + c == 0` for every one in `equalities`."""

    def __init__(self, n: int, constraints: Sequence[Constraint], equalities: Sequence[Constraint] = (),
                 divisions: Sequence[tuple[int, tuple[int, ...], int, int]] = ()):
        self.n = n
        self.constraints = list(constraints)
        self.equalities = list(equalities)
        # variables that are divisions: (variable, a, c, m) for x_variable = floor((a . x + c) / m)
        self.divisions = list(divisions)

    # -- counting ------------------------------------------------------------
    def count(self) -> int:
        return sum(self.count_by_prefix(0).values())

    def count_by_prefix(self, keys: int) -> dict[tuple[int, ...], int]:
        """{values of the first `keys` variables: points with them} (points only)."""
        plan = _Plan.of(self, keys)
        result: dict[tuple[int, ...], int] = defaultdict(int)
        if plan is None:
            return dict(result)
        plan.enumerate(result)
        return {k: v for k, v in result.items() if v}


class _Plan:
    """A system made ready for counting: equalities substituted, variables ordered
    (keys first, the innermost last), and each level's Fourier-Motzkin shadow."""

    def __init__(self, n: int, keys: int, levels: list[list[Constraint]], key_pos: list[int], key_count: int):
        self.n, self.keys, self.levels = n, keys, levels
        self.key_pos, self.key_count = key_pos, key_count

    @staticmethod
    def of(system: System, keys: int) -> _Plan | None:
        n = system.n
        ineqs: list[tuple[list[int], int]] = [(list(a), c) for a, c in system.constraints]
        eqs: list[tuple[list[int], int]] = [(list(a), c) for a, c in system.equalities]
        alive = list(range(n))         # original variables still present (by position)
        # a division e = floor((f . x + c) / m) whose f has a unit coefficient on a non-key
        # variable v: v gives way to the remainder r = f . x + c - m e (0 <= r < m), a
        # unimodular change of variables (the count is the same) that turns the division's
        # two constraints into a box of m values, cheap to enumerate
        divisions = [(e, list(f), c, m) for e, f, c, m in system.divisions]
        used: set[int] = set()
        while divisions:
            e, f, c, m = divisions.pop(0)
            v = next((q for q in range(n) if q >= keys and q != e and q not in used and abs(f[q]) == 1), None)
            if v is None:
                continue
            used.add(v)
            sign = f[v]

            def remainder(b: list[int], d: int, f=f, c=c, m=m, v=v, e=e, sign=sign) -> tuple[list[int], int]:
                t = b[v] * sign          # b_v x_v = t (r - sum_{q != v} f_q x_q - c + m x_e)
                if t == 0:
                    return b, d
                out = [bq - t * fq for bq, fq in zip(b, f)]
                out[v] = t
                out[e] += t * m
                return out, d - t * c

            ineqs = [remainder(b, d) for b, d in ineqs]
            eqs = [remainder(b, d) for b, d in eqs]
            divisions = [(e2, *remainder(f2, c2), m2) for e2, f2, c2, m2 in divisions]
        # substitute the non-key variables that an equality with a unit coefficient determines
        changed = True
        while changed:
            changed = False
            for k, (a, c) in enumerate(eqs):
                if all(v == 0 for v in a):
                    if c != 0:
                        return None
                    eqs.pop(k)
                    changed = True
                    break
                pivot = next((p for p in range(len(a)) if alive[p] >= keys and abs(a[p]) == 1), None)
                if pivot is None:
                    continue
                eqs.pop(k)
                # x_p = -(sum_{q != p} a_q x_q + c) / a_p
                sign = a[pivot]

                def substitute(b: list[int], d: int, a=a, c=c, pivot=pivot, sign=sign) -> tuple[list[int], int]:
                    f = b[pivot] * sign     # b_p * x_p = -f (sum a_q x_q + c) with f = b_p / a_p (a_p = +-1)
                    if f == 0:
                        return b, d
                    return [bq - f * aq for bq, aq in zip(b, a)], d - f * c

                ineqs = [substitute(b, d) for b, d in ineqs]
                eqs = [substitute(b, d) for b, d in eqs]
                ineqs = [(b[:pivot] + b[pivot + 1:], d) for b, d in ineqs]
                eqs = [(b[:pivot] + b[pivot + 1:], d) for b, d in eqs]
                alive.pop(pivot)
                changed = True
                break
        for a, c in eqs:           # left: as two inequalities
            ineqs.append((a, c))
            ineqs.append(([-v for v in a], -c))
        m = len(alive)
        key_count = sum(1 for v in alive if v < keys)
        key_pos = [alive.index(v) if v in alive else -1 for v in range(keys)]
        # order: keys first (as given), then the others by the size of their box (from the
        # constraints on them alone; unknown counts as unbounded), the two largest innermost:
        # the enumerated variables are the ones with the fewest values
        others = sorted((p for p in range(m) if alive[p] >= keys), key=lambda p: _box(ineqs, p))
        order = [p for p in range(m) if alive[p] < keys] + others
        constraints: list[Constraint] = []
        for a, c in ineqs:
            norm = _normalized([a[p] for p in order], c)
            if norm is False:
                return None
            if norm is not True:
                constraints.append(norm)
        # keys as they were given: position of each original key among the ordered variables
        key_pos = [order.index(p) if p >= 0 else -1 for p in key_pos]
        levels: list[list[Constraint]] = [[] for _ in range(m)]
        current = _tightest(constraints)
        for j in range(m - 1, -1, -1):
            levels[j] = [(a, c) for a, c in current if a[j] != 0]
            eliminated = _eliminate(current, j)
            if eliminated is None:
                return None
            current = eliminated
        return _Plan(m, keys, levels, key_pos, key_count)

    def enumerate(self, result: dict[tuple[int, ...], int]) -> None:
        m, keys = self.n, self.key_count
        closed = min(2, m - keys)
        outer = m - closed
        point = [0] * m
        # what the outer variables contribute to each constraint below level j: the count
        # of the points below depends on the outer point only through these offsets, so
        # equal offsets (a variable no inner constraint mentions) reuse one count
        below = [[a for level in self.levels[j:] for a, _ in level] for j in range(m + 1)]
        memo: dict[tuple, int] = {}

        def count_below(j: int) -> int:
            offsets = (j, *(sum(a[q] * point[q] for q in range(j) if a[q]) for a in below[j]))
            if offsets in memo:
                return memo[offsets]
            if j == outer:
                if closed == 2:
                    count = self._sum2(point, outer)
                elif closed == 1:
                    lo, hi = self._range(point, outer)
                    count = max(0, hi - lo + 1)
                else:
                    count = 1
            else:
                lo, hi = self._range(point, j)
                count = 0
                for v in range(lo, hi + 1):
                    point[j] = v
                    count += count_below(j + 1)
            if len(memo) > _MEMO_LIMIT:
                memo.clear()
            memo[offsets] = count
            return count

        def walk(j: int) -> None:
            if j == keys:
                count = count_below(j)
                if count:
                    result[tuple(point[p] if p >= 0 else None for p in self.key_pos)] += count
                return
            lo, hi = self._range(point, j)
            for v in range(lo, hi + 1):
                point[j] = v
                walk(j + 1)

        walk(0)

    def _range(self, point: list[int], j: int) -> tuple[int, int]:
        lo, hi = None, None
        for a, c in self.levels[j]:
            rest = c + sum(a[q] * point[q] for q in range(j) if a[q])
            if a[j] > 0:
                b = _ceil_div(-rest, a[j])
                lo = b if lo is None or b > lo else lo
            else:
                b = rest // -a[j]
                hi = b if hi is None or b < hi else hi
        if lo is None or hi is None:
            raise Unbounded(f"variable {j} is unbounded")
        return lo, hi

    def _sum2(self, point: list[int], j: int) -> int:
        """Points of the last two variables (x = j, y = j + 1) at the outer `point`.

        Each constraint on y bounds it by floor((p x + q) / m) from above or by
        ceil((p x + q) / m) from below (m > 0). Between the cuts (where two upper or
        two lower bounds cross, or where an upper and a lower bound meet) the active
        pair is fixed, and so is whether it leaves room (u >= l: then the count at x is
        floor(u) - ceil(l) + 1 >= 0; else none): the sum is two floor sums."""
        lo, hi = self._range(point, j)
        if lo > hi:
            return 0
        uppers: set[tuple[int, int, int]] = set()     # y <= floor((p x + q) / m)
        lowers: set[tuple[int, int, int]] = set()     # y >= ceil((p x + q) / m)
        for a, c in self.levels[j + 1]:
            rest = c + sum(a[q] * point[q] for q in range(j) if a[q])
            if a[j + 1] > 0:      # a_y y + a_x x + rest >= 0
                lowers.add((-a[j], -rest, a[j + 1]))
            else:
                uppers.add((a[j], rest, -a[j + 1]))
        if not uppers or not lowers:
            raise Unbounded(f"variable {j + 1} is unbounded")
        ups, lows = list(uppers), list(lowers)
        starts = {lo}
        for group in (ups, lows):
            for k, (p1, q1, m1) in enumerate(group):
                for p2, q2, m2 in group[k + 1:]:
                    slope, offset = p1 * m2 - p2 * m1, q1 * m2 - q2 * m1     # (f1 - f2) m1 m2
                    if slope:
                        starts.add(_floor_div(-offset, slope) + 1)
        for pu, qu, mu in ups:
            for pl, ql, ml in lows:
                slope, offset = pu * ml - pl * mu, qu * ml - ql * mu          # (u - l) mu ml
                if slope > 0:          # u >= l from the first x at or past the root
                    starts.add(-_floor_div(offset, slope))
                elif slope < 0:        # u >= l up to the last x at or before it
                    starts.add(_floor_div(offset, -slope) + 1)
        cuts = sorted(s for s in starts if lo <= s <= hi)
        total = 0
        for k, a in enumerate(cuts):
            b = cuts[k + 1] - 1 if k + 1 < len(cuts) else hi
            pu, qu, mu = min(ups, key=lambda f: _Fraction(f, a))
            pl, ql, ml = max(lows, key=lambda f: _Fraction(f, a))
            if (pu * a + qu) * ml < (pl * a + ql) * mu:       # u < l: no y on this segment
                continue
            n = b - a + 1
            total += floor_sum(n, mu, pu, pu * a + qu) + floor_sum(n, ml, -pl, -pl * a - ql) + n
        return total


class _Fraction:
    """(p x + q) / m at x, compared exactly."""

    __slots__ = ("num", "den")

    def __init__(self, f: tuple[int, int, int], x: int):
        self.num, self.den = f[0] * x + f[1], f[2]

    def __lt__(self, other: _Fraction) -> bool:
        return self.num * other.den < other.num * self.den


def _floor_div(a: int, b: int) -> int:
    return a // b


def floor_sum(n: int, m: int, a: int, b: int) -> int:
    """sum of floor((a i + b) / m) for i in [0, n), m > 0, in O(log) steps (AtCoder's)."""
    if n <= 0:
        return 0
    total = 0
    if a < 0 or a >= m:
        total += n * (n - 1) // 2 * (a // m)
        a %= m
    if b < 0 or b >= m:
        total += n * (b // m)
        b %= m
    while True:
        if a >= m:
            total += n * (n - 1) // 2 * (a // m)
            a %= m
        if b >= m:
            total += n * (b // m)
            b %= m
        y_max = a * n + b
        if y_max < m:
            return total
        n, b = divmod(y_max, m)
        m, a = a, m


def _box(ineqs: Sequence[tuple[list[int], int]], p: int) -> float:
    """How many values the constraints on variable p alone leave it (inf: unbounded)."""
    lo, hi = -math.inf, math.inf
    for a, c in ineqs:
        if a[p] and all(v == 0 for q, v in enumerate(a) if q != p):
            if a[p] > 0:
                lo = max(lo, _ceil_div(-c, a[p]))
            else:
                hi = min(hi, c // -a[p])
    return hi - lo + 1


def _tightest(constraints: Sequence[Constraint]) -> list[Constraint]:
    """One constraint per coefficient vector, the tightest."""
    best: dict[tuple[int, ...], int] = {}
    for a, c in constraints:
        if a not in best or c < best[a]:
            best[a] = c
    return list(best.items())


def _eliminate(constraints: Sequence[Constraint], j: int) -> list[Constraint] | None:
    """Fourier-Motzkin elimination of variable j (its coefficient set to 0 in every
    constraint kept); None when a constant constraint fails."""
    pos = [(a, c) for a, c in constraints if a[j] > 0]
    neg = [(a, c) for a, c in constraints if a[j] < 0]
    out = [(a, c) for a, c in constraints if a[j] == 0]
    for ap, cp in pos:
        for an, cn in neg:
            fp, fn = -an[j], ap[j]
            norm = _normalized([fp * x + fn * y for x, y in zip(ap, an)], fp * cp + fn * cn)
            if norm is False:
                return None
            if norm is not True:
                out.append(norm)
    return _tightest(out)


# -- isl sets -------------------------------------------------------------------
def systems(obj: isl.Set | isl.BasicSet | isl.UnionSet, values: Mapping[str, int]) -> list[tuple[str | None, System]]:
    """The disjoint pieces of `obj` as systems over its set dimensions (flattened:
    a wrapped map's domain first), parameters replaced by `values`, each with its
    space's tuple name."""
    sets: list = []
    if isinstance(obj, isl.UnionSet):
        obj.foreach_set(sets.append)
    else:
        sets.append(obj)
    out = []
    for s in sets:
        if isinstance(s, isl.BasicSet):
            s = isl.Set.from_basic_set(s)
        s = fix_parameters(s, values)
        if s.is_wrapping():
            name = None
            s = s.flatten()
        else:
            name = s.get_tuple_name()
        n = s.dim(isl.dim_type.set)
        for piece in disjoint_pieces(s):
            out.append((name, _system(piece, n, values)))
    return out


def disjoint_pieces(s: isl.Set) -> list[isl.BasicSet]:
    """Disjoint basic sets whose union is `s`: each basic set of the coalesced set minus
    the ones before it. (isl's make_disjoint on the whole set splits a union of stencil
    footprints into pieces with up to five divisions; this order keeps them at one or two.)"""
    pieces: list[isl.BasicSet] = []
    before: isl.Set | None = None
    for bset in s.coalesce().get_basic_sets():
        part = isl.Set.from_basic_set(bset)
        if before is not None:
            part = part.subtract(before)
        before = isl.Set.from_basic_set(bset) if before is None else before.union(isl.Set.from_basic_set(bset))
        pieces += [p.remove_redundancies() for p in part.compute_divs().make_disjoint().get_basic_sets()]
    return pieces


def fix_parameters(s, values: Mapping[str, int]):
    """`s` with each parameter that `values` names fixed to its value."""
    for k in range(s.dim(isl.dim_type.param)):
        name = s.get_dim_name(isl.dim_type.param, k)
        if name in values:
            s = s.fix_val(isl.dim_type.param, k, isl.Val.int_from_si(s.get_ctx(), values[name]))
    return s


def _system(bset: isl.BasicSet, n: int, values: Mapping[str, int]) -> System:
    params = [bset.get_dim_name(isl.dim_type.param, k) for k in range(bset.dim(isl.dim_type.param))]
    divisions = []
    n_div = bset.dim(isl.dim_type.div)
    for k in range(n_div):          # each division a variable of its own (after the n set ones)
        div = bset.get_div(k)       # its floor's argument, (f . x + c) / m
        m = div.get_denominator_val().to_python()

        def scaled(val: isl.Val, m=m) -> int:
            num, den = val.get_num_si(), val.get_den_val().to_python()
            assert (num * m) % den == 0
            return num * m // den

        f = [scaled(div.get_coefficient_val(isl.dim_type.in_, q)) for q in range(n)]
        f += [scaled(div.get_coefficient_val(isl.dim_type.div, q)) for q in range(n_div)]
        c = scaled(div.get_constant_val())
        for q, name in enumerate(params):
            p = scaled(div.get_coefficient_val(isl.dim_type.param, q))
            if p:
                if name not in values:
                    raise KeyError(f"no value for parameter {name}")
                c += p * values[name]
        divisions.append((n + k, tuple(f), c, m))
    if n_div:
        bset = bset.lift()
    width = bset.dim(isl.dim_type.set)
    ineqs, eqs = [], []
    for con in bset.get_constraints():
        a = tuple(con.get_coefficient_val(isl.dim_type.set, k).to_python() for k in range(width))
        c = con.get_constant_val().to_python()
        for k, name in enumerate(params):
            p = con.get_coefficient_val(isl.dim_type.param, k).to_python()
            if p:
                if name not in values:
                    raise KeyError(f"no value for parameter {name}")
                c += p * values[name]
        (eqs if con.is_equality() else ineqs).append((a, c))
    return System(width, ineqs, eqs, divisions)


def count(obj: isl.Set | isl.BasicSet | isl.UnionSet, values: Mapping[str, int] = {}) -> int:
    """The number of integer points of `obj` at the parameter `values`."""
    return sum(system.count() for _, system in systems(obj, values))


def count_by_prefix(obj: isl.Set | isl.UnionSet, keys: int,
                    values: Mapping[str, int] = {}) -> dict[tuple[int, ...], int]:
    """Points of `obj` per value of its first `keys` set dimensions (every piece must
    have them)."""
    result: dict[tuple[int, ...], int] = defaultdict(int)
    for _, system in systems(obj, values):
        for key, n in system.count_by_prefix(keys).items():
            result[key] += n
    return dict(result)
