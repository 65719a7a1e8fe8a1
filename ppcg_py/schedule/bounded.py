"""Run isl's scheduler with a bound on its CPU time, and isl's dataflow analysis apart.

isl's scheduler can run for minutes (PolyBench's heat-3d with constant loop
bounds, which relaxed.py's problem without them avoids), and its operation limit
does not bound the expensive part. The scheduler
runs in a forked child (watchdog.py), which inherits every isl object
copy-on-write and sends back only the schedule's text; past the timeout (CPU
seconds) the child is killed and the caller falls back to a simpler schedule.

isl's dataflow analysis runs in a child too (`isolated`): it has crashed the process
(fuzz 13:947, a segmentation fault inside compute_flow), and once it has run past an
operation limit, a later isl call has (fuzz 14:41: the abort had left isl's heap
corrupt). In a child, both end with the child, and the caller falls back to
memory-based dependences.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import islpy as isl

from ..watchdog import ChildDied, StepTooLong, run_with_deadline

T = TypeVar("T")

_NO_DEADLINE = 1e9   # seconds: the compilation's own watchdog bounds the time


def compute_with_timeout(constraints: isl.ScheduleConstraints, timeout: float) -> isl.Schedule | None:
    """isl's schedule, or None when it takes longer than `timeout` seconds.

    isl's own failures ("unable to carry dependences") raise isl.Error, as without a bound.
    """
    if timeout <= 0:
        return constraints.compute_schedule()
    try:
        ok, text = run_with_deadline(lambda _progress: _schedule_text(constraints), timeout)
    except StepTooLong:
        return None
    except ChildDied as exc:
        raise isl.Error(str(exc)) from None
    if not ok:
        raise isl.Error(text)
    return isl.Schedule.read_from_str(constraints.get_ctx(), text)


def _schedule_text(constraints: isl.ScheduleConstraints) -> tuple[bool, str]:
    try:
        return True, str(constraints.compute_schedule())
    except isl.Error as exc:    # as text: the parent raises it again
        return False, str(exc)


def isolated(work: Callable[[], T]) -> T:
    """`work()` run in a forked child; its result must pickle (isl objects as text).
    Its exceptions are raised here again; ChildDied if the child crashed."""
    return run_with_deadline(lambda _progress: work(), _NO_DEADLINE)
