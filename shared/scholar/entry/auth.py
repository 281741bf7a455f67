"""The OAuth authorization server function's Lambda handler (functions/auth/app.py re-exports it)."""

from __future__ import annotations

from typing import Any

from scholar.gateway.auth.lambda_app import handle
from scholar.runtime.observability import logger, tracer

__all__ = ["lambda_handler"]


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler(capture_response=False)
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return handle(event, context)
