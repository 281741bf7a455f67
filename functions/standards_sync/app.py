"""Lambda entry point of StandardsSyncFunction (EventBridge Scheduler, on demand, cold start): wiring only."""

from aws_lambda_powertools.utilities.typing import LambdaContext

from scholar.families.standards.jobs import handle_sync_event
from scholar.runtime.observability import logger, metrics, tracer


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics(capture_cold_start_metric=True, raise_on_empty_metrics=False)
@tracer.capture_lambda_handler(capture_response=False)
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    remaining = context.get_remaining_time_in_millis() / 1000 if context else None
    return handle_sync_event(event, remaining)
