"""Lambda entry point of the OAuth authorization server: wiring only (scholar.gateway.auth does the work)."""

from aws_lambda_powertools.utilities.typing import LambdaContext

from scholar.gateway.auth.lambda_app import handle
from scholar.runtime.observability import logger, tracer


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler(capture_response=False)
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    return handle(event, context)
