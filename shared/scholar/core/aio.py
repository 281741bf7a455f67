"""One event loop per process, on its own thread, kept for the life of the execution environment.

Handlers are synchronous Lambda entry points; upstream clients are async and belong to the loop
that opened them (encode/httpx#2473). Running every coroutine on one long-lived loop lets warm
invocations reuse connections, and works from any thread (the local stack runs handlers on moto's
request threads, a new thread per request).

A blocking call (boto3, SSM, pdfium) made inside a coroutine holds the loop and serialises a
``gather``; ``off_loop`` is the one way to make it from a coroutine: it runs on a worker thread.
"""

from __future__ import annotations

import asyncio
import atexit
import contextvars
import functools
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar

T = TypeVar("T")
P = ParamSpec("P")
# Blocking calls are I/O waits (DynamoDB, S3, SSM): more workers than cores; boto3's pool matches (store.aws).
BLOCKING_WORKERS = 16
_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None
_shutdown_hooks: list[Callable[[], Coroutine[Any, Any, None]]] = []
_workers: ThreadPoolExecutor | None = None


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
        except Exception:  # noqa: BLE001  # exit path: one failing hook must not keep the others from running
            pass
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=5)
    loop.close()
    _loop = _thread = None


def _blocking_pool() -> ThreadPoolExecutor:
    global _workers
    with _lock:
        if _workers is None:
            _workers = ThreadPoolExecutor(max_workers=BLOCKING_WORKERS, thread_name_prefix="scholar-blocking")
    return _workers


async def off_loop(fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """Run the blocking ``fn(*args, **kwargs)`` on a worker thread and await its result (or its exception).

    ``fn`` sees the caller's context variables (the usage record being filled, a deadline), as with
    ``asyncio.to_thread``.
    """
    loop = asyncio.get_running_loop()
    context = contextvars.copy_context()
    return await loop.run_in_executor(_blocking_pool(), functools.partial(context.run, fn, *args, **kwargs))


def in_this_context(fn: Callable[P, T]) -> Callable[P, T]:
    """``fn`` run, on whatever thread calls it, in a copy of this caller's context variables (its backend, the usage
    record): for a thread pool's ``map`` or ``submit``, which run their work in the worker thread's own context."""
    context = contextvars.copy_context()

    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        return context.copy().run(fn, *args, **kwargs)  # a copy each: one context is entered by one thread at a time

    return run


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
