"""The Python API: ``Scholar`` and ``AsyncScholar``, whose methods are the tools of the catalogue.

    from scholar import Scholar

    with Scholar() as scholar:
        hits = scholar.search(query="protein structure prediction", limit=5)
        paper = scholar.get_paper(identifier=hits["results"][0]["id"])

A method takes the tool's parameters as keyword arguments and returns the dict the MCP tool returns
(``structuredContent``); an error envelope is raised as the ``ScholarError`` of its code (``NotFoundError`` …), and a
queued answer is polled to its end unless ``wait=False``. Calls run as principal ``local`` on the backend
``SCHOLAR_BACKEND`` names (default: the local store under ``SCHOLAR_HOME``), entered at the first call (or by
``with``) and left by ``close()``. The methods are made from the catalogue when first asked for, with the tool's
description as their docstring and its parameters as their signature (``help(Scholar().get_paper)``).
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from contextlib import ExitStack
from types import TracebackType
from typing import Any, Self

from scholar.core.catalogue import ToolSpec
from scholar.local.backend import entry_backend
from scholar.local.calls import Progress, call, local_tools

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

    def __init__(self, *, wait: bool = True, progress: Progress | None = None) -> None:
        self._wait = wait
        self._progress = progress
        self._stack: ExitStack | None = None
        self._lock = threading.Lock()

    def _enter(self) -> None:
        with self._lock:
            if self._stack is None:
                stack = ExitStack()
                stack.enter_context(entry_backend())
                self._stack = stack

    def close(self) -> None:
        """Leave the backend (idempotent); a later call enters it again."""
        with self._lock:
            stack, self._stack = self._stack, None
        if stack is not None:
            stack.close()

    def _call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        self._enter()
        return call(name, arguments, wait=self._wait, progress=self._progress)

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *local_tools()})

    def __getattr__(self, name: str) -> Any:
        spec = local_tools().get(name) if not name.startswith("_") else None
        if spec is None:
            raise AttributeError(f"{type(self).__name__} has no tool {name!r} (dir() lists them)")
        method = self._method(spec)
        method.__name__ = method.__qualname__ = name
        method.__doc__ = spec.description
        method.__signature__ = _signature(spec)  # type: ignore[attr-defined]  # read by inspect and help()
        return method

    def _method(self, spec: ToolSpec) -> Any:
        raise NotImplementedError


class Scholar(_Tools):
    """The tools as blocking methods (``Scholar().get_paper(identifier="10.1073/…")``)."""

    def __enter__(self) -> Self:
        self._enter()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
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
