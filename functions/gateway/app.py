"""Lambda entry point of the MCP gateway: wiring only (scholar.gateway.mcp does the work)."""

from aws_lambda_powertools.utilities.typing import LambdaContext

from scholar.gateway.mcp.lambda_app import handle, prime
from scholar.runtime import snapstart
from scholar.runtime.observability import logger, tracer

snapstart.register(prime)  # only acts under SnapStart (template parameter GatewaySnapStart)


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler(capture_response=False)
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    return handle(event, context)
