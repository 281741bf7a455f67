"""Route moto's Lambda invocations to our real handlers, in this process.

moto without Docker only echoes an invoke (``LambdaSimpleBackend.invoke``). The router replaces
that method while a LocalStack runs, so direct invokes (gateway → family) and Step Functions
Task states run the functions' handlers (``scholar.entry``, what ``functions/<folder>/app.py`` re-exports) with a
Lambda-shaped event and context. A handler
that raises answers like AWS: ``x-amz-function-error: Unhandled`` and an error payload.
"""

from __future__ import annotations

import importlib
import json
import logging
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from moto.awslambda_simple.models import LambdaSimpleBackend

logger = logging.getLogger(__name__)

Handler = Callable[[Any, Any], Any]

__all__ = ["FunctionRoute", "InvokeRouter", "LambdaContext"]


@dataclass
class LambdaContext:
    """The parts of the Lambda context object our handlers and Powertools read."""

    function_name: str
    invoked_function_arn: str
    memory_limit_in_mb: int
    timeout_s: int
    function_version: str = "$LATEST"
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    log_group_name: str = ""
    log_stream_name: str = "local"
    _deadline: float = 0.0

    def __post_init__(self) -> None:
        self.log_group_name = self.log_group_name or f"/aws/lambda/{self.function_name}"
        self._deadline = time.monotonic() + self.timeout_s

    def get_remaining_time_in_millis(self) -> int:
        """Milliseconds left before the function's configured timeout (never negative)."""
        return max(0, int((self._deadline - time.monotonic()) * 1000))


@dataclass(frozen=True)
class FunctionRoute:
    """Where one template function's code lives: ``module`` (dotted) and ``attribute``."""

    logical_id: str
    module: str
    attribute: str

    def load(self) -> Handler:
        """Import the handler (lazily, like a cold start)."""
        return getattr(importlib.import_module(self.module), self.attribute)


class InvokeRouter:
    """Replaces moto's echoing Lambda invoke with calls to our handlers while installed.

    Args:
        routes: physical function name → route, from the deployed stack.
        overrides: logical id → callable used instead of the route's module (tests).
    """

    def __init__(self, routes: Mapping[str, FunctionRoute], overrides: Mapping[str, Handler] | None = None) -> None:
        self._routes = dict(routes)
        self._overrides = dict(overrides or {})
        self._loaded: dict[str, Handler] = {}
        self._original: Any = None

    def install(self) -> None:
        """Patch ``LambdaSimpleBackend.invoke``; idempotent."""
        if self._original is not None:
            return
        self._original = LambdaSimpleBackend.invoke
        router = self

        def invoke(backend: LambdaSimpleBackend, function_name: str, qualifier: str | None, body: Any,
                   headers: Any, response_headers: Any) -> str | bytes | None:
            return router._invoke(backend, function_name, qualifier, body, headers, response_headers)

        LambdaSimpleBackend.invoke = invoke  # type: ignore[method-assign, assignment]  # moto's documented seam

    def uninstall(self) -> None:
        """Put moto's own invoke back; idempotent."""
        if self._original is not None:
            LambdaSimpleBackend.invoke = self._original  # type: ignore[method-assign]  # moto's own, put back
            self._original = None

    def add_routes(self, routes: Mapping[str, FunctionRoute]) -> None:
        """Learn more physical names (the stack is deployed after the router is installed)."""
        self._routes.update(routes)

    def _handler(self, route: FunctionRoute) -> Handler:
        if route.logical_id in self._overrides:
            return self._overrides[route.logical_id]
        if route.logical_id not in self._loaded:
            self._loaded[route.logical_id] = route.load()
        return self._loaded[route.logical_id]

    def _invoke(self, backend: LambdaSimpleBackend, function_name: str, qualifier: str | None, body: Any,
                headers: Any, response_headers: dict[str, str]) -> bytes | None:
        function = backend.get_function(function_name, qualifier)
        route = self._routes.get(function.function_name)
        if route is None:  # not one of ours (a test created it): keep moto's behaviour
            return self._original(backend, function_name, qualifier, body, headers, response_headers)
        event = json.loads(body) if body else {}
        context = LambdaContext(
            function_name=function.function_name,
            invoked_function_arn=function.function_arn,
            memory_limit_in_mb=int(function.memory_size),
            timeout_s=int(function.timeout),
        )
        invocation_type = headers.get("X-Amz-Invocation-Type", "RequestResponse")
        if invocation_type == "DryRun":
            return b""
        if invocation_type == "Event":  # asynchronous: AWS answers 202 at once and runs it later
            threading.Thread(target=self._call, args=(route, event, context, {}), daemon=True).start()
            return b""
        return self._call(route, event, context, response_headers)

    def _call(self, route: FunctionRoute, event: Any, context: LambdaContext,
              response_headers: dict[str, str]) -> bytes:
        try:
            result = self._handler(route)(event, context)
        except Exception as exc:  # the Lambda runtime's top level: report it like AWS does
            logger.exception("local invoke of %s failed", route.logical_id)
            response_headers["x-amz-function-error"] = "Unhandled"
            return _error_payload(type(exc).__name__, str(exc), context, exc)
        try:
            return json.dumps(result).encode()
        except (TypeError, ValueError) as exc:
            response_headers["x-amz-function-error"] = "Unhandled"
            return _error_payload("Runtime.MarshalError", f"Unable to marshal response: {exc}", context, exc)


def _error_payload(error_type: str, message: str, context: LambdaContext, exc: BaseException) -> bytes:
    return json.dumps({
        "errorMessage": message,
        "errorType": error_type,
        "requestId": context.aws_request_id,
        "stackTrace": traceback.format_tb(exc.__traceback__),
    }).encode()
