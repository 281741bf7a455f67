"""Lambda entry point of the PDF pipeline's steps (resolve, download, convert, finish): wiring only.

The state machine sends ``{"action": "<step>", ...}``; scholar.runtime.family dispatches it to
``scholar.families.pdf.handlers.ACTIONS``. A step that raises is retried and caught by the state machine.
"""

from aws_lambda_powertools.utilities.typing import LambdaContext

import scholar.services.health.recorder  # noqa: F401  # registers this function's usage recording (scholar.core.usage_hooks)
from scholar.runtime.family import dispatch
from scholar.runtime.observability import logger, metrics, tracer


@logger.inject_lambda_context(correlation_id_path="task_id", clear_state=True)
@metrics.log_metrics(capture_cold_start_metric=True, raise_on_empty_metrics=False)
@tracer.capture_lambda_handler(capture_response=False)
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    return dispatch("pdf", event)
