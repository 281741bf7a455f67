"""Calling a family function: Lambda invoke when deployed, the handler in-process when told to.

Only this module and scholar.runtime.executions talk to Lambda / Step Functions. In-process dispatch
(``SCHOLAR_LOCAL_DISPATCH``: tests, scripts) runs the function's handler through the dispatcher the local
stand-in registers (``scholar.local.dispatch.install``): this floor names no family function.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from scholar.core.config import get_settings
from scholar.core.errors import InternalError
from scholar.runtime.invocation import Invocation, Outcome
from scholar.store import aws

# (family, event) → what the family function's ``lambda_handler`` returns, run in this process.
InProcessDispatcher = Callable[[str, dict[str, Any]], Any]
_in_process: InProcessDispatcher | None = None


def set_in_process_dispatcher(dispatcher: InProcessDispatcher | None) -> None:
    """Run family calls through ``dispatcher`` when ``SCHOLAR_LOCAL_DISPATCH`` is set (``None`` forgets it)."""
    global _in_process
    _in_process = dispatcher


def _dispatcher() -> InProcessDispatcher:
    if _in_process is None:
        raise InternalError(
            "SCHOLAR_LOCAL_DISPATCH is set but no in-process dispatcher is installed (scholar.local.dispatch.install)"
        )
    return _in_process


def dispatch_in_process(family: str, payload: dict[str, Any]) -> Any:
    """What ``family``'s handler returns for ``payload``, run in this process (the local backend's executions).

    Raises:
        InternalError: no in-process dispatcher is installed.
    """
    return _dispatcher()(family, payload)


def function_name(family: str) -> str:
    return f"{get_settings().resources.function_prefix}{family}"


def invoke_function_async(family: str, payload: dict[str, Any]) -> None:
    """Start a family function without waiting for it (Lambda ``Event`` invocation)."""
    if get_settings().local_dispatch:
        worker = threading.Thread(target=_dispatcher(), args=(family, payload), name=f"{family}-async", daemon=True)
        worker.start()
        return
    aws.client("lambda").invoke(
        FunctionName=function_name(family), InvocationType="Event", Payload=json.dumps(payload).encode()
    )


def _invoke(family: str, payload: str) -> bytes:
    response = aws.client("lambda").invoke(
        FunctionName=function_name(family), InvocationType="RequestResponse", Payload=payload
    )
    raw: bytes = response["Payload"].read() or b"null"
    if response.get("FunctionError"):
        body: Any = json.loads(raw)
        message = body.get("errorType", "error") if isinstance(body, dict) else "error"
        raise InternalError(f"the {family} function failed ({message}); the failure was logged")
    return raw


def invoke_family(family: str, invocation: Invocation) -> Outcome:
    """Run a tool in its family function and return the outcome.

    Raises:
        InternalError: the function itself crashed (an unhandled error, not a tool error).
    """
    if get_settings().local_dispatch:
        return Outcome.model_validate(_dispatcher()(family, invocation.model_dump(mode="json")))
    # One pass from bytes to the model (no json.loads + validate).
    return Outcome.model_validate_json(_invoke(family, invocation.model_dump_json()))


def invoke_action(family: str, action: str, **fields: Any) -> Outcome:
    """Run one of a family function's internal actions (``ACTIONS``, never a tool) and return its outcome.

    Raises:
        InternalError: the function itself crashed.
    """
    payload = {"action": action, **fields}
    if get_settings().local_dispatch:
        return Outcome.model_validate(_dispatcher()(family, payload))
    return Outcome.model_validate_json(_invoke(family, json.dumps(payload)))
