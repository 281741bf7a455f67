"""The MCP gateway function's Lambda handler (functions/gateway/app.py re-exports it).

Imports the MCP SDK (``scholar.gateway.mcp``): only the gateway function loads this module. Under SnapStart (template
parameter GatewaySnapStart) the server is primed before the snapshot.
"""

from __future__ import annotations

from typing import Any

from scholar.gateway.mcp.lambda_app import handle, prime
from scholar.runtime import snapstart
from scholar.runtime.observability import logger, tracer

__all__ = ["lambda_handler"]

snapstart.register(prime)  # only acts under SnapStart


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler(capture_response=False)
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return handle(event, context)
