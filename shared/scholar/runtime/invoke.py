"""Calling a family function: Lambda invoke when deployed, the function in this process on a backend that runs it.

Only this module and scholar.runtime.executions talk to Lambda / Step Functions. The current backend
(scholar.core.backend) decides: one that brings its own ``dispatch`` (the local backend: the function's code called
directly, scholar.entry) runs every call in this process; the environment backend invokes Lambda, or, with
``SCHOLAR_LOCAL_DISPATCH`` (tests, scripts), the dispatcher installed on it (``scholar.local.dispatch.install``: the
Lambda handlers themselves, in-process). This floor names no family function.
"""

from __future__ import annotations

import contextvars
import json
import threading
from typing import Any

from scholar.core.backend import ENVIRONMENT, Dispatch, current
from scholar.core.config import get_settings
from scholar.core.errors import InternalError
from scholar.runtime.invocation import Invocation, Outcome
from scholar.store import aws

InProcessDispatcher = Dispatch


def set_in_process_dispatcher(dispatcher: InProcessDispatcher | None) -> None:
    """The environment backend's in-process dispatcher, used when ``SCHOLAR_LOCAL_DISPATCH`` is set (``None`` forgets
    it)."""
    ENVIRONMENT.dispatch = dispatcher


def _in_process() -> InProcessDispatcher | None:
    """How the current backend runs a function in this process, or None where a Lambda invoke does.

    Raises:
        InternalError: ``SCHOLAR_LOCAL_DISPATCH`` is set but no dispatcher is installed.
    """
    backend = current()
    if backend is not ENVIRONMENT:
        return backend.dispatch
    if not get_settings().local_dispatch:
        return None
    if backend.dispatch is None:
        raise InternalError(
            "SCHOLAR_LOCAL_DISPATCH is set but no in-process dispatcher is installed (scholar.local.dispatch.install)"
        )
    return backend.dispatch


def dispatch_in_process(family: str, payload: dict[str, Any]) -> Any:
    """What ``family``'s function answers for ``payload``, run in this process (the local backend's executions).

    Raises:
        InternalError: the current backend runs nothing in this process.
    """
    dispatcher = _in_process()
    if dispatcher is None:
        raise InternalError(f"the {current().name} backend runs no function in this process")
    return dispatcher(family, payload)


def function_name(family: str) -> str:
    return f"{get_settings().resources.function_prefix}{family}"


def invoke_function_async(family: str, payload: dict[str, Any]) -> None:
    """Start a family function without waiting for it (Lambda ``Event`` invocation)."""
    dispatcher = _in_process()
    if dispatcher is not None:  # on a thread that carries this call's backend
        context = contextvars.copy_context()
        worker = threading.Thread(target=context.run, args=(dispatcher, family, payload), name=f"{family}-async",
                                  daemon=True)
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
    dispatcher = _in_process()
    if dispatcher is not None:
        return Outcome.model_validate(dispatcher(family, invocation.model_dump(mode="json")))
    # One pass from bytes to the model (no json.loads + validate).
    return Outcome.model_validate_json(_invoke(family, invocation.model_dump_json()))


def invoke_action(family: str, action: str, **fields: Any) -> Outcome:
    """Run one of a family function's internal actions (``ACTIONS``, never a tool) and return its outcome.

    Raises:
        InternalError: the function itself crashed.
    """
    payload = {"action": action, **fields}
    dispatcher = _in_process()
    if dispatcher is not None:
        return Outcome.model_validate(dispatcher(family, payload))
    return Outcome.model_validate_json(_invoke(family, json.dumps(payload)))
