"""Starting, describing and stopping Step Functions executions (tasks that outlive a request)."""

from __future__ import annotations

import json
from typing import Any

from botocore.exceptions import ClientError

from scholar.store import aws


def start_execution(state_machine_arn: str, name: str, payload: dict[str, Any]) -> str:
    """Start an execution named ``name`` (idempotent: the same name and input return the same ARN)."""
    client = aws.client("stepfunctions")
    try:
        out = client.start_execution(stateMachineArn=state_machine_arn, name=name, input=json.dumps(payload))
    except ClientError as exc:
        if exc.response["Error"]["Code"] != "ExecutionAlreadyExists":
            raise
        arn = state_machine_arn.replace(":stateMachine:", ":execution:") + f":{name}"
        return arn
    return out["executionArn"]


def describe_execution(execution_arn: str) -> dict[str, Any]:
    return aws.client("stepfunctions").describe_execution(executionArn=execution_arn)


def stop_execution(execution_arn: str, cause: str) -> None:
    try:
        aws.client("stepfunctions").stop_execution(executionArn=execution_arn, cause=cause)
    except ClientError as exc:
        if exc.response["Error"]["Code"] not in ("ExecutionDoesNotExist", "ExecutionNotRunning"):
            raise
