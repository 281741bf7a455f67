"""The Python API: ``Scholar`` and ``AsyncScholar``, whose methods are the tools of the catalogue.

    from scholar import Scholar

    with Scholar() as scholar:
        hits = scholar.search(query="protein structure prediction", limit=5)
        paper = scholar.get_paper(identifier=hits["results"][0]["id"])

A method takes the tool's parameters as keyword arguments and returns the dict the MCP tool returns
(``structuredContent``); an error envelope is raised as the ``ScholarError`` of its code (``NotFoundError`` …), and a
queued answer is polled to its end unless ``wait=False``. ``on_progress`` (optional) is called with each progress
step of long work (``scholar.runtime.progress.Step``: done, total, message), from the thread running the call.
Calls run as principal ``local`` on the instance's own
backend: the local store under ``home`` (default ``SCHOLAR_HOME``), opened at the first call (or by ``with``) and
closed by ``close()``, and entered around each call only (a context variable), so two instances over two folders
work side by side in one process, from any threads, and closing one leaves the other working. With
``SCHOLAR_BACKEND=aws`` the process's embedded AWS stand-in is used instead (one per process). Nothing is printed.
The methods are made from the catalogue when first asked for, with the tool's
description as their docstring and its parameters as their signature (``help(Scholar().get_paper)``).
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from contextlib import ExitStack
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

from scholar.core.backend import using
from scholar.core.catalogue import ToolSpec
from scholar.local.backend import LOCAL, backend_name, entry_backend
from scholar.local.calls import Progress, call, local_tools
from scholar.runtime.progress import Reporter

if TYPE_CHECKING:
    from scholar.local.machine import LocalMachine

__all__ = ["AsyncScholar", "Scholar"]


def _signature(spec: ToolSpec) -> inspect.Signature:
    """The tool's parameters as keyword-only parameters (required ones without a default)."""
    parameters = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=field.annotation,
                          default=inspect.Parameter.empty if field.is_required() else field.get_default())
        for name, field in spec.input_model.model_fields.items()
    ]
    return inspect.Signature(parameters, return_annotation=dict[str, Any])


class _Tools:
    """What both twins share: the backend held open, and a method per tool made on first use."""

    def __init__(self, home: str | Path | None = None, *, wait: bool = True, progress: Progress | None = None,
                 on_progress: Reporter | None = None) -> None:
        self._home = Path(home) if home is not None else None
        self._wait = wait
        self._progress = progress
        self._on_progress = on_progress
        self._machine: LocalMachine | None = None
        self._stack: ExitStack | None = None  # the AWS stand-in (SCHOLAR_BACKEND=aws)
        self._lock = threading.Lock()
        self._blocks = threading.local()  # per thread: the with-blocks that made this backend current

    def _enter(self) -> LocalMachine | None:
        """Open the backend if it is not open; the local machine to enter around a call (None: the stand-in)."""
        with self._lock:
            if self._machine is not None or self._stack is not None:
                return self._machine
            if backend_name() == LOCAL:
                from scholar.local.machine import open_machine  # noqa: PLC0415  # the store: at the first call

                self._machine = open_machine(self._home)
                return self._machine
            stack = ExitStack()
            stack.enter_context(entry_backend())
            self._stack = stack
            return None

    def close(self) -> None:
        """Close the backend (idempotent); a later call opens it again."""
        with self._lock:
            machine, self._machine = self._machine, None
            stack, self._stack = self._stack, None
        if machine is not None:
            machine.close()
        if stack is not None:
            stack.close()

    def _call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        machine = self._enter()
        if machine is None:
            return call(name, arguments, wait=self._wait, progress=self._progress, on_progress=self._on_progress)
        with using(machine.context):
            return call(name, arguments, wait=self._wait, progress=self._progress, on_progress=self._on_progress)

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *local_tools()})

    def __getattr__(self, name: str) -> Any:
        spec = local_tools().get(name) if not name.startswith("_") else None
        if spec is None:
            raise AttributeError(f"{type(self).__name__} has no tool {name!r} (dir() lists them)")
        method = self._method(spec)
        method.__name__ = method.__qualname__ = name
        method.__doc__ = spec.description
        method.__signature__ = _signature(spec)  # read by inspect and help()
        return method

    def _method(self, spec: ToolSpec) -> Any:
        raise NotImplementedError


class Scholar(_Tools):
    """The tools as blocking methods (``Scholar(home=…).get_paper(identifier="10.1073/…")``).

    As a ``with`` block it also makes its backend the current one in the block (for the code of that thread: the
    package's own functions called there run on it too), and closes it at the end.
    """

    def __enter__(self) -> Self:
        machine = self._enter()
        block = ExitStack()
        if machine is not None:
            block.enter_context(using(machine.context))
        self._blocks.__dict__.setdefault("open", []).append(block)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._blocks.open.pop().close()
        self.close()

    def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """Run ``tool`` by its catalogue name with ``arguments``.

        Raises:
            ScholarError: the tool's error (``InvalidArgumentError`` names the field and the rule).
        """
        return self._call(tool, arguments)

    def _method(self, spec: ToolSpec) -> Any:
        def method(**arguments: Any) -> dict[str, Any]:
            return self._call(spec.name, arguments)

        return method


class AsyncScholar(_Tools):
    """The tools as coroutines (``await AsyncScholar().get_paper(identifier=…)``); each call runs in a worker
    thread, so several may run at once."""

    async def __aenter__(self) -> Self:
        await asyncio.to_thread(self._enter)
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await asyncio.to_thread(self.close)

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """Run ``tool`` by its catalogue name with ``arguments`` (see ``Scholar.call``)."""
        return await asyncio.to_thread(self._call, tool, arguments)

    def _method(self, spec: ToolSpec) -> Any:
        async def method(**arguments: Any) -> dict[str, Any]:
            return await asyncio.to_thread(self._call, spec.name, arguments)

        return method
