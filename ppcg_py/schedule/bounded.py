"""Run isl's scheduler with a wall-clock bound.

isl's scheduler can run for minutes (PolyBench's heat-3d with constant loop
bounds), and its operation limit does not bound the expensive part. The scheduler
runs in a forked child, which inherits every isl object copy-on-write and sends
back only the schedule's text; after the timeout the child is killed and the
caller falls back to a simpler schedule.
"""
from __future__ import annotations

import multiprocessing
import os

import islpy as isl


def compute_with_timeout(constraints: isl.ScheduleConstraints, timeout: float) -> isl.Schedule | None:
    """isl's schedule, or None when it takes longer than `timeout` seconds."""
    if timeout <= 0 or not hasattr(os, "fork"):
        return constraints.compute_schedule()
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(constraints, sender), daemon=True)
    child.start()
    sender.close()
    try:
        if not receiver.poll(timeout):
            return None
        ok, text = receiver.recv()
    except EOFError:
        ok, text = False, "the scheduler's process died"
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        receiver.close()
    if not ok:
        raise isl.Error(text)
    return isl.Schedule.read_from_str(constraints.get_ctx(), text)


def _child(constraints: isl.ScheduleConstraints, sender) -> None:
    try:
        sender.send((True, str(constraints.compute_schedule())))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent
        sender.send((False, str(exc)))
    finally:
        sender.close()
