"""One event loop per process, on its own thread, kept for the life of the execution environment.

Handlers are synchronous Lambda entry points; upstream clients are async and belong to the loop
that opened them (encode/httpx#2473). Running every coroutine on one long-lived loop lets warm
invocations reuse connections, and works from any thread (the local stack runs handlers on moto's
request threads, a new thread per request).
"""

from __future__ import annotations

import asyncio
import atexit
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")
_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None
_shutdown_hooks: list[Callable[[], Coroutine[Any, Any, None]]] = []


def on_shutdown(hook: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run ``hook()`` on the loop before it closes at exit (e.g. closing HTTP clients); once per hook."""
    if hook not in _shutdown_hooks:
        _shutdown_hooks.append(hook)


def _start() -> asyncio.AbstractEventLoop:
    global _loop, _thread
    with _lock:
        if _loop is None:
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="scholar-aio", daemon=True)
            thread.start()
            _loop, _thread = loop, thread
            atexit.register(_stop)
    return _loop


def _stop() -> None:
    global _loop, _thread
    loop, thread = _loop, _thread
    if loop is None or thread is None:
        return
    for hook in _shutdown_hooks:
        try:
            asyncio.run_coroutine_threadsafe(hook(), loop).result(timeout=5)
        except Exception:  # noqa: BLE001  exit path: one failing hook must not keep the others from running
            pass
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=5)
    loop.close()
    _loop = _thread = None


def is_process_loop(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether ``loop`` is the long-lived process loop (clients may be kept on it)."""
    return loop is _loop


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on the process loop and wait for its result (never call from a coroutine)."""
    loop = _start()
    if threading.current_thread() is _thread:
        coro.close()
        raise RuntimeError("aio.run() called from the loop thread; await the coroutine instead")
    return asyncio.run_coroutine_threadsafe(coro, loop).result()
