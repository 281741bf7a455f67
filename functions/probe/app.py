"""Lambda entry point of ProbeFunction (EventBridge Scheduler, hourly): wiring only."""

from aws_lambda_powertools.utilities.typing import LambdaContext

from scholar.runtime.observability import logger, metrics, tracer
from scholar.services.health.probe import handle_probe_event


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics(capture_cold_start_metric=True, raise_on_empty_metrics=False)
@tracer.capture_lambda_handler(capture_response=False)
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    return handle_probe_event(event)
