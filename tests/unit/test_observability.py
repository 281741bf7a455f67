"""The observability objects (scholar.runtime.observability).

Tracing only where it can trace, nothing heavy at import.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scholar.core.config import load_settings
from scholar.runtime import observability

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, False),
        ({"LAMBDA_TASK_ROOT": "/var/task"}, True),
        ({"LAMBDA_TASK_ROOT": "/var/task", "POWERTOOLS_TRACE_DISABLED": "true"}, False),
        ({"LAMBDA_TASK_ROOT": "/var/task", "AWS_SAM_LOCAL": "true"}, False),
    ],
)
def test_tracing_is_on_only_inside_lambda_unless_switched_off(env, expected):
    assert load_settings(env).tracing is expected


class FakeTracer:
    def __init__(self) -> None:
        self.captured: list[dict[str, Any]] = []

    def capture_lambda_handler(self, handler, capture_response):
        self.captured.append({"capture_response": capture_response})

        def traced_handler(event, context):
            return {"traced": handler(event, context)}

        return traced_handler


def test_a_traced_handler_goes_through_the_tracer_chosen_once_without_capturing_the_response(monkeypatch):
    fake = FakeTracer()
    monkeypatch.setattr(observability, "get_tracer", lambda: fake)
    handler = observability.tracer.capture_lambda_handler(capture_response=False)(lambda event, context: event["n"])

    assert handler({"n": 1}, None) == {"traced": 1}
    assert handler({"n": 2}, None) == {"traced": 2}
    assert fake.captured == [{"capture_response": False}]


def test_where_tracing_is_off_the_handler_runs_undecorated(monkeypatch):
    monkeypatch.setattr(observability, "get_tracer", lambda: None)
    handler = observability.tracer.capture_lambda_handler(capture_response=False)(lambda event, context: event["n"])

    assert handler({"n": 3}, None) == 3


def test_outside_lambda_a_family_function_answers_without_loading_the_xray_sdk_or_boto3():
    # Given a fresh interpreter with the function as it is imported in Lambda (no LAMBDA_TASK_ROOT here)
    code = (
        "import json, sys\n"
        "from functions.papers.app import lambda_handler\n"
        "from scholar.runtime.context import LocalContext\n"
        "out = lambda_handler({'action': 'no_such_action'}, LocalContext())\n"
        "print(json.dumps({'ok': out['ok'], 'loaded': sorted(m for m in ('aws_xray_sdk', 'boto3', 'botocore.client')"
        " if m in sys.modules)}))\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{REPO / 'shared'}:{REPO}", "POWERTOOLS_METRICS_NAMESPACE": "Test"}
    # When it answers an invocation that needs no AWS call
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=True)
    # Then neither the X-Ray SDK nor boto3 was imported
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    assert answer == {"ok": False, "loaded": []}
