"""Progress of the call being served: one reporter held in the call's context, set by the entry that serves it.

Long work says how far it got with ``report(done, total, message)`` and never asks who listens: the entry that
serves the call sets the listener with ``reporting(...)`` around it. MCP (``scholar.gateway.mcp.dispatch``) sends
``notifications/progress`` with the client's progressToken, the command line draws a bar on a terminal (a plain line
otherwise, on stderr), the Python API hands each step to the caller's callback, and a task's background work
(``scholar.runtime.family``) writes the message as the task's status (get_task_result's hint, the Tasks
extension's statusMessage). With no listener, ``report`` does nothing. A listener that fails is logged and
forgotten: progress never fails the work.

The listener is a context variable: asyncio tasks (a search's fan-out) and ``asyncio.to_thread`` inherit it; a
thread started otherwise does not.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

__all__ = ["Step", "Reporter", "report", "reporting"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Step:
    """One progress message: ``done`` of ``total`` (None: unknown), and what is happening."""

    done: float
    total: float | None = None
    message: str | None = None


Reporter = Callable[[Step], None]

_REPORTER: ContextVar[Reporter | None] = ContextVar("scholar_progress", default=None)


def report(done: float, total: float | None = None, message: str | None = None) -> None:
    """Tell the call's listener how far the work got (nothing when no one listens)."""
    reporter = _REPORTER.get()
    if reporter is None:
        return
    try:
        reporter(Step(float(done), None if total is None else float(total), message))
    except Exception:  # progress never fails the work it describes
        logger.debug("a progress listener failed", exc_info=True)


@contextmanager
def reporting(reporter: Reporter | None) -> Iterator[None]:
    """Run the block with ``reporter`` listening to its ``report`` calls (None: no one)."""
    token = _REPORTER.set(reporter)
    try:
        yield
    finally:
        _REPORTER.reset(token)
