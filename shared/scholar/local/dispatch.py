"""In-process dispatch on the environment backend (``SCHOLAR_LOCAL_DISPATCH``: tests, scripts, benchmarks).

A family call runs the function's Lambda handler (``scholar.entry.functions``: Powertools' logger, metrics and
tracer around the function's call) in this process, with a Lambda-shaped context. ``scholar.runtime.invoke`` sits
below the families and names none of them, so the dispatcher is registered there (``install``). The local backend
does not use this: it calls the functions directly (``scholar.local.machine``).
"""

from __future__ import annotations

from typing import Any

from scholar.entry import functions
from scholar.runtime import invoke
from scholar.runtime.context import LocalContext


def run_in_process(name: str, event: dict[str, Any]) -> Any:
    """Call the Lambda handler of function ``name`` with ``event``, as Lambda would."""
    handler = getattr(functions, name)
    return handler(event, LocalContext(function_name=invoke.function_name(name)))


def install() -> None:
    """Route the environment backend's in-process calls to the functions' Lambda handlers (idempotent)."""
    invoke.set_in_process_dispatcher(run_in_process)
