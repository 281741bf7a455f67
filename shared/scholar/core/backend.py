"""What the code runs on — its settings, its clients, how a family is called — held in a context variable.

Whoever opens a backend owns it: ``Scholar(home=…)``, ``scholar mcp``, ``scholar serve`` and the command line open a
local one (``scholar.local.machine``), a Lambda execution environment and the AWS stand-in run on the environment
backend (``ENVIRONMENT``: settings from the process environment, boto3's clients, Lambda invokes). The owner enters
it with ``using(backend)`` for the life of its work; the floors below read ``current()`` (settings in
``scholar.core.config``, clients in ``scholar.store.aws``, family calls in ``scholar.runtime.invoke``), never a
process global, so two backends live side by side in one process. A thread sees the backend of the code that
started it only when it is started in a copy of that code's context (``contextvars.copy_context().run``): every
thread the package starts is. Learned from Powertools' idempotency, whose persistence layer is an instance handed
in, not a module's state.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

__all__ = ["ENVIRONMENT", "Backend", "Dispatch", "current", "state", "using"]

T = TypeVar("T")
# (function name, event) → what that function answers, run in this process (a family's outcome as a dict).
Dispatch = Callable[[str, dict[str, Any]], Any]


@dataclass(eq=False)
class Backend:
    """One backend: what differs between two of them in one process.

    Args:
        name: what it is (``environment``, ``local``), for messages.
        environ: settings over the process environment (``SCHOLAR_*`` names and values), read by
            ``scholar.core.config.get_settings`` while the backend is current.
        clients: service name → its client (the local backend's SQLite and files); ``None``: boto3's.
        dispatch: runs a function in this process; ``None``: a Lambda invoke (or, on the environment backend, the
            dispatcher tests install with ``SCHOLAR_LOCAL_DISPATCH``).
        metrics: whether calls publish CloudWatch metrics (Powertools EMF lines): only where CloudWatch reads them.
    """

    name: str = "environment"
    environ: Mapping[str, str] = field(default_factory=dict)
    clients: Callable[[str], Any] | None = None
    dispatch: Dispatch | None = None
    metrics: bool = True
    # (generation, Settings) read for this backend (scholar.core.config keeps it current).
    settings_cache: tuple[int, Any] | None = None
    _state: dict[str, Any] = field(default_factory=dict)
    _closers: list[Callable[[], None]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def state(self, key: str, factory: Callable[[], T], *, on_close: Callable[[T], None] | None = None) -> T:
        """This backend's own ``key`` object, made by ``factory`` at first use; ``on_close(obj)`` runs at ``close``."""
        try:
            return self._state[key]
        except KeyError:
            pass
        with self._lock:
            if key not in self._state:
                made = factory()
                self._state[key] = made
                if on_close is not None:
                    self._closers.append(lambda: on_close(made))
            return self._state[key]

    def replace_state(self, key: str, value: Any) -> Any:
        """Put ``value`` in place of ``key``'s object (``None`` forgets it; tests); returns the one it replaced."""
        with self._lock:
            old = self._state.pop(key, None)
            if value is not None:
                self._state[key] = value
        return old

    def close(self) -> None:
        """Let go of what the backend's own objects hold (open files, memory), newest first; idempotent."""
        with self._lock:
            closers, self._closers = self._closers, []
            self._state.clear()
        for closer in reversed(closers):
            closer()


ENVIRONMENT = Backend()
_current: ContextVar[Backend] = ContextVar("scholar_backend", default=ENVIRONMENT)


def current() -> Backend:
    """The backend of the running code: the one its owner entered, else ``ENVIRONMENT``."""
    return _current.get()


def state(key: str, factory: Callable[[], T], *, on_close: Callable[[T], None] | None = None) -> T:
    """The current backend's own ``key`` object (``Backend.state``)."""
    return _current.get().state(key, factory, on_close=on_close)


@contextmanager
def using(backend: Backend) -> Iterator[Backend]:
    """Make ``backend`` current in this context until the block ends (it stays open: its owner closes it)."""
    token = _current.set(backend)
    try:
        yield backend
    finally:
        _current.reset(token)
