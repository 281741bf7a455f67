"""The observability objects of every Lambda function (one place; library code logs via logging).

Logger and Metrics are built at import (cheap). The Powertools Tracer is not: constructing one imports
the X-Ray SDK and patches boto3/httpx (~0.25 s of cold start), even where tracing is off. So ``tracer``
here is a stand-in with the same decorator, ``tracer.capture_lambda_handler(capture_response=False)``,
that decides at the first invocation (settings, never at import) and builds the real Tracer only where
tracing is on (inside Lambda, unless ``POWERTOOLS_TRACE_DISABLED``); elsewhere the handler runs undecorated.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger, Metrics

from scholar.core.config import get_settings

if TYPE_CHECKING:
    from aws_lambda_powertools import Tracer

SERVICE = "scholar"
NAMESPACE = "ScholarMCP"
logger = Logger(service=SERVICE)
metrics = Metrics(service=SERVICE, namespace=NAMESPACE)

Handler = Callable[[Any, Any], Any]


@cache
def get_tracer() -> Tracer | None:
    """The Powertools Tracer of this execution environment, or None where tracing is off (no X-Ray import)."""
    if not get_settings().tracing:
        return None
    from aws_lambda_powertools import Tracer  # noqa: PLC0415  # lazy: imports and patches the X-Ray SDK

    return Tracer(service=SERVICE)


class LazyTracer:
    """Where Powertools' Tracer stood in app.py: the same handler decorator, the Tracer built on first use."""

    def capture_lambda_handler(
        self, lambda_handler: Handler | None = None, *, capture_response: bool = False
    ) -> Any:
        """Trace a Lambda handler with ``Tracer.capture_lambda_handler`` where tracing is on.

        Used as ``@tracer.capture_lambda_handler(capture_response=False)`` (results hold user data).
        The choice is made once, at the first call.
        """
        if lambda_handler is None:
            return functools.partial(self.capture_lambda_handler, capture_response=capture_response)
        chosen: list[Handler] = []
        handler = lambda_handler

        @functools.wraps(handler)
        def wrapper(event: Any, context: Any) -> Any:
            if not chosen:
                active = get_tracer()
                chosen.append(
                    handler
                    if active is None
                    else active.capture_lambda_handler(handler, capture_response=capture_response)
                )
            return chosen[0](event, context)

        return wrapper


tracer = LazyTracer()
