"""The observability objects of every Lambda function (one place; library code logs via logging).

Logger and Metrics are built at import (cheap). The Powertools Tracer is not: constructing one imports
the X-Ray SDK and patches boto3/httpx (~0.25 s of cold start), even where tracing is off. So ``traced``
decides at the first invocation (settings, never at import) and builds the Tracer only where tracing
is on (inside Lambda, unless ``POWERTOOLS_TRACE_DISABLED``); elsewhere the handler runs undecorated.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

from aws_lambda_powertools import Logger, Metrics

from scholar.config import get_settings

if TYPE_CHECKING:
    from aws_lambda_powertools import Tracer

SERVICE = "scholar"
logger = Logger(service=SERVICE)
metrics = Metrics(service=SERVICE, namespace="ScholarMCP")

Handler = TypeVar("Handler", bound=Callable[..., Any])


@cache
def tracer() -> Tracer | None:
    """The Powertools Tracer of this execution environment, or None where tracing is off (no X-Ray import)."""
    if not get_settings().tracing:
        return None
    from aws_lambda_powertools import Tracer  # deliberately lazy: imports and patches the X-Ray SDK

    return Tracer(service=SERVICE)


def traced(handler: Handler) -> Handler:
    """Trace a Lambda handler with ``Tracer.capture_lambda_handler`` where tracing is on.

    The response is never captured (results hold user data). The choice is made once, at the first call.
    """
    chosen: list[Callable[..., Any]] = []

    @functools.wraps(handler)
    def wrapper(event: Any, context: Any) -> Any:
        if not chosen:
            active = tracer()
            chosen.append(handler if active is None else active.capture_lambda_handler(handler, capture_response=False))
        return chosen[0](event, context)

    return wrapper  # type: ignore[return-value]  # same signature as handler (functools.wraps)
