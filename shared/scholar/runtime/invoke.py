"""Calling a family function: Lambda invoke when deployed, the handler in-process when told to.

Only this module and scholar.runtime.executions talk to Lambda / Step Functions.
"""

from __future__ import annotations

import importlib
import json
import threading
from typing import Any

from scholar.config import get_settings
from scholar.errors import InternalError
from scholar.runtime.invocation import Invocation, Outcome
from scholar.store import aws


def function_name(family: str) -> str:
    return f"{get_settings().resources.function_prefix}{family}"


def invoke_function_async(family: str, payload: dict[str, Any]) -> None:
    """Start a family function without waiting for it (Lambda ``Event`` invocation)."""
    if get_settings().local_dispatch:
        module = importlib.import_module(f"functions.{family}.app")
        context = _local_context(family)
        worker = threading.Thread(target=module.lambda_handler, args=(payload, context), name=f"{family}-async",
                                  daemon=True)
        worker.start()
        return
    aws.client("lambda").invoke(
        FunctionName=function_name(family), InvocationType="Event", Payload=json.dumps(payload).encode()
    )


def _local_context(family: str) -> Any:
    from scholar.runtime.context import LocalContext  # noqa: PLC0415  # local dispatch only (scripts, tests)

    return LocalContext(function_name=function_name(family))


def invoke_family(family: str, invocation: Invocation) -> Outcome:
    """Run a tool in its family function and return the outcome.

    Raises:
        InternalError: the function itself crashed (an unhandled error, not a tool error).
    """
    if get_settings().local_dispatch:
        module = importlib.import_module(f"functions.{family}.app")
        context = _local_context(family)
        return Outcome.model_validate(module.lambda_handler(invocation.model_dump(mode="json"), context))
    response = aws.client("lambda").invoke(
        FunctionName=function_name(family), InvocationType="RequestResponse", Payload=invocation.model_dump_json()
    )
    raw = response["Payload"].read() or b"null"
    if response.get("FunctionError"):
        body: Any = json.loads(raw)
        message = body.get("errorType", "error") if isinstance(body, dict) else "error"
        raise InternalError(f"the {family} function failed ({message}); the failure was logged")
    return Outcome.model_validate_json(raw)  # one pass from bytes to the model (no json.loads + validate)
