"""Lambda entry point of the standards family: wiring only (scholar.runtime.family does the work)."""

from aws_lambda_powertools.utilities.typing import LambdaContext

import scholar.services.health.recorder  # noqa: F401  # registers this function's usage recording (scholar.core.usage_hooks)
from scholar.runtime.family import dispatch
from scholar.runtime.observability import logger, metrics, tracer


@logger.inject_lambda_context(correlation_id_path="request_id", clear_state=True)
@metrics.log_metrics(capture_cold_start_metric=True, raise_on_empty_metrics=False)
@tracer.capture_lambda_handler(capture_response=False)
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    return dispatch("standards", event)
