"""In-process dispatch (``SCHOLAR_LOCAL_DISPATCH``): a family call runs ``functions/<family>/app.py`` in this process.

``scholar.runtime.invoke`` sits below the families and names none of them; the local stand-in may reach every
function (as the embedded stack's invoke router does), so it registers the dispatcher there (``install``).
Tests and scripts that set ``SCHOLAR_LOCAL_DISPATCH`` without a running local stack install it.
"""

from __future__ import annotations

import importlib
from typing import Any

from scholar.runtime import invoke
from scholar.runtime.context import LocalContext


def run_in_process(family: str, event: dict[str, Any]) -> Any:
    """Call the ``lambda_handler`` of ``functions/<family>/app.py`` with ``event`` (imported on first use)."""
    handler = importlib.import_module(f"functions.{family}.app").lambda_handler
    return handler(event, LocalContext(function_name=invoke.function_name(family)))


def install() -> None:
    """Route in-process family calls to ``functions/<family>/app.py`` (idempotent)."""
    invoke.set_in_process_dispatcher(run_in_process)
