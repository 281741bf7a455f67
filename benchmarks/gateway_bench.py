"""Gateway figures (DESIGN §9): warm overhead, and a cached call over the local HTTP server.

- tools/list and a cached get_paper through the gateway Lambda handler in-process (API Gateway REST
  event; family handler in-process, moto in-process), and the gateway's own share of the latter;
- (cold imports of every function: benchmarks/imports_bench.py);
- a cached get_paper through the local HTTP server (uvicorn → gateway → moto Lambda → papers → moto).
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from unittest.mock import patch

import httpx

from benchmarks.common import in_process_stack, report, timed

REPO = Path(__file__).resolve().parents[1]
PNAS = "10.1073/pnas.1414271111"


def _event(message: dict) -> dict:
    event = json.loads((REPO / "events" / "api_rest_v1_tools_call.json").read_text())
    event["body"] = json.dumps(message)
    return event


def in_process(fixtures: Path) -> None:
    from functions.gateway.app import lambda_handler
    from functions.papers.app import lambda_handler as papers_handler
    from scholar.runtime.context import LocalContext
    from scholar.runtime.invocation import Outcome

    with in_process_stack(fixtures) as fake:
        ctx = LocalContext(function_name="scholar-bench-gateway")
        listing = _event({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
        report("gateway warm tools/list (in-process)", timed(lambda: lambda_handler(listing, ctx), 500, 20), 1.0)
        call = _event(
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
             "params": {"name": "get_paper", "arguments": {"identifier": PNAS}}}
        )
        first = json.loads(lambda_handler(call, ctx)["body"])
        assert not first["result"].get("isError"), first
        whole = timed(lambda: lambda_handler(call, ctx), 300, 10)
        report("cached get_paper through the gateway (in-process, moto)", whole)
        invocation = {"tool": "get_paper", "arguments": {"identifier": PNAS}, "principal": "bench", "request_id": "b"}
        family = timed(lambda: papers_handler(invocation, LocalContext(function_name="scholar-bench-papers")), 300, 10)
        report("  of which the papers handler alone", family)
        overhead = statistics.median(whole) - statistics.median(family)
        print(f"{'  gateway overhead for a dispatched cached call':<58} median {overhead:8.2f} ms   "
              f"bar 2 ms ({'ok' if overhead <= 2 else 'OVER'}, ratio {overhead / 2:.2f})", flush=True)
        upstream_calls = fake.count(source="s2")
        print(f"  upstream requests for {len(whole) + len(family) + 21} get_paper calls: {upstream_calls}", flush=True)
        # The difference above also counts the family running a second time inside the gateway (its
        # decorators, the in-process dispatch) and the noise of two medians; this is the gateway alone.
        answer = Outcome.model_validate(papers_handler(invocation, LocalContext(function_name="scholar-bench-papers")))
        with patch("scholar.mcp.dispatch.invoke_family", lambda family, invocation: answer):
            report("  gateway alone (the family's answer handed back at once)", timed(lambda: lambda_handler(call, ctx),
                                                                                      500, 20), 2.0)


def over_http(fixtures: Path) -> None:
    from scholar.local.server import LocalServer
    from scholar.store import aws
    from tests.fakes.upstream import FakeUpstream

    with FakeUpstream(fixtures) as fake:
        env = {"SCHOLAR_UPSTREAM_PROXY_BASE": fake.base_url, "SCHOLAR_PACE_SCALE": "0"}
        with LocalServer(template=REPO / "template.yaml", extra_env=env) as server:
            aws.reset_clients()
            print(f"  local stack startup: {server.stack.startup_s:.2f} s", flush=True)
            headers = {"accept": "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25"}
            body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": "get_paper", "arguments": {"identifier": PNAS}}}
            with httpx.Client(trust_env=False, timeout=30, headers=headers) as http:
                def once() -> None:
                    response = http.post(server.url, json=body)
                    assert response.status_code == 200 and not response.json()["result"].get("isError")

                report("cached get_paper over the local HTTP server", timed(once, 200, 10), 10.0)


def main(fixtures: Path) -> None:
    print("== gateway ==", flush=True)
    in_process(fixtures)
    over_http(fixtures)
