"""SnapStart runtime hooks (scholar.runtime.snapstart) and the gateway's priming."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import types

from functions.gateway.app import lambda_handler
from scholar.gateway.mcp.lambda_app import prime
from scholar.runtime import snapstart
from scholar.store import aws as aws_clients
from tests.events import load_event


def test_outside_the_lambda_runtime_no_hook_is_registered(monkeypatch):
    monkeypatch.setitem(sys.modules, "snapshot_restore_py", None)  # import fails, as it does off Lambda

    assert snapstart.register(lambda: None) is False


def test_in_the_lambda_runtime_prime_runs_before_the_snapshot_and_after_restore_runs_after(monkeypatch):
    registered: dict[str, list] = {"before": [], "after": []}
    fake = types.ModuleType("snapshot_restore_py")
    fake.register_before_snapshot = registered["before"].append
    fake.register_after_restore = registered["after"].append
    monkeypatch.setitem(sys.modules, "snapshot_restore_py", fake)

    def prime_hook() -> None:
        pass

    assert snapstart.register(prime_hook) is True
    assert registered == {"before": [prime_hook], "after": [snapstart.after_restore]}


def test_after_restore_forgets_the_boto3_clients_and_reseeds_random(aws):
    before = aws_clients.client("dynamodb")
    random.seed(7)
    shared_sequence = [random.random() for _ in range(3)]
    random.seed(7)

    snapstart.after_restore()

    assert aws_clients.client("dynamodb") is not before
    assert [random.random() for _ in range(3)] != shared_sequence


def test_a_primed_gateway_still_answers_two_invocations_in_a_row(aws, lambda_context):
    prime()
    prime()  # idempotent: the hook may find an already built gateway

    first = lambda_handler(load_event("api_rest_v1_tools_list"), lambda_context)
    second = lambda_handler(load_event("api_rest_v1_tools_list"), lambda_context)

    assert first["statusCode"] == second["statusCode"] == 200
    assert json.loads(first["body"])["result"] == json.loads(second["body"])["result"]


def test_prime_imports_what_the_server_leaves_to_a_first_request():
    deferred = ("scholar.core.validation", "scholar.gateway.mcp.prompts", "scholar.gateway.mcp.completions",
                "scholar.gateway.mcp.resources", "scholar.runtime.invoke", "scholar.store.tasks")
    probe = ("import sys; from scholar.gateway.mcp import server; before = set(sys.modules); "
             "from scholar.gateway.mcp.lambda_app import prime; prime(); "
             f"print(sorted(m for m in {deferred!r} if m in sys.modules and m not in before))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120,
                          env={**os.environ, "AWS_DEFAULT_REGION": "us-east-1"})

    assert done.stdout.strip() == str(sorted(deferred))  # not imported by the server, imported by prime
