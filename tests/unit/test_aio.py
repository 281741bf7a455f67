"""The process loop and the off-loop helper (scholar.core.aio)."""

from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest

from scholar.core import aio


def test_blocking_calls_made_off_the_loop_overlap_instead_of_queuing():
    # Two calls that can only both finish if they run at the same time: each waits for the other.
    meeting = threading.Barrier(2, timeout=5)

    async def both() -> list[int]:
        return await asyncio.gather(aio.off_loop(meeting.wait), aio.off_loop(meeting.wait))

    assert sorted(aio.run(both())) == [0, 1]


def test_an_off_loop_call_runs_on_a_worker_thread_and_returns_its_value():
    def where(prefix: str, *, suffix: str) -> str:
        return f"{prefix}{threading.current_thread().name}{suffix}"

    name = aio.run(aio.off_loop(where, "<", suffix=">"))

    assert name.startswith("<scholar-blocking") and name.endswith(">")


def test_an_off_loop_call_raises_its_own_exception_in_the_coroutine():
    def fail() -> None:
        raise KeyError("missing")

    with pytest.raises(KeyError):
        aio.run(aio.off_loop(fail))


def test_an_off_loop_call_sees_the_caller_s_context_variables():
    current = contextvars.ContextVar("current", default="none")

    async def inside() -> str:
        current.set("the caller's")
        return await aio.off_loop(current.get)

    assert aio.run(inside()) == "the caller's"
