"""Where usage recording plugs in (DESIGN §2: cross-cutting hooks are registered, not imported upward).

``scholar.sources.http`` reports every upstream attempt (``note_attempt``) and ``scholar.runtime.family`` opens one
record per tool call (``recording``); both sit below ``scholar.services.health``, whose recorder registers itself here
when it is imported (every family function imports it in its ``app.py``). With no recorder registered both
are no-ops: nothing is recorded.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Coroutine, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class CallRecord(Protocol):
    """One tool call being recorded (``scholar.services.health.recorder.Call``)."""

    async def bind(self, coro: Coroutine[Any, Any, T]) -> T: ...

    def ended(self, outcome: dict[str, Any]) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Recorder:
    """The two entry points of a usage recorder."""

    recording: Callable[[str, str, str], AbstractContextManager[CallRecord]]
    note_attempt: Callable[..., None]


class _Unrecorded:
    async def bind(self, coro: Coroutine[Any, Any, T]) -> T:
        return await coro

    def ended(self, outcome: dict[str, Any]) -> dict[str, Any]:
        return outcome


_recorder: Recorder | None = None


def set_recorder(recorder: Recorder | None) -> None:
    """Record usage through ``recorder`` from now on (``None``: record nothing)."""
    global _recorder
    _recorder = recorder


def note_attempt(source: str, status: int | str, latency_s: float, nbytes: int = 0) -> None:
    """Count one HTTP attempt to ``source`` in the current call's record (``status``: HTTP status, or a failure)."""
    if _recorder is not None:
        _recorder.note_attempt(source, status, latency_s, nbytes)


@contextlib.contextmanager
def recording(family: str, tool: str, principal: str) -> Iterator[CallRecord]:
    """Record one tool call while the block runs (an unrecorded call when no recorder is registered)."""
    if _recorder is None:
        yield _Unrecorded()
        return
    with _recorder.recording(family, tool, principal) as call:
        yield call
