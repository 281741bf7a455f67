"""Gateway figures (DESIGN §9): warm overhead, and a cached call over the local HTTP server.

- tools/list and a cached get_paper through the gateway Lambda handler in-process (API Gateway REST
  event; family handler in-process, moto in-process), and the gateway's own share of the latter;
- (cold imports of every function: benchmarks/imports_bench.py);
- a cached get_paper through the local HTTP server (uvicorn → gateway → moto Lambda → papers → moto), and
  where that call spends its time: the segments below timed inside the server process (each function
  wrapped with a timer while the benchmark runs; every AWS call by operation).

``python -m benchmarks gateway``
"""

from __future__ import annotations

import collections
import functools
import json
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
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
        with patch("scholar.runtime.invoke.invoke_family", lambda family, invocation: answer):
            report("  gateway alone (the family's answer handed back at once)", timed(lambda: lambda_handler(call, ctx),
                                                                                      500, 20), 2.0)


# (module, attribute, label) of the segments a cached call goes through, outermost first.
SEGMENTS = (
    ("scholar.runtime.invoke", "invoke_family", "gateway: the family invocation it waits for"),
    ("scholar.local.invoke", "InvokeRouter._call", "  family: the whole handler (as moto's Lambda runs it)"),
    ("scholar.runtime.family", "_run", "  family: the tool"),
    ("scholar.services.health.recorder", "flush", "  family: usage record queued"),
    ("scholar.core.validation", "validate_arguments", "gateway: strict validation"),
    ("scholar.runtime.family", "validate_arguments", "  family: strict validation"),
    ("scholar.runtime.family", "dump_result", "  family: result dump"),
    ("scholar.runtime.family", "enforce_cap", "  family: 5 MiB cap check"),
)


@contextmanager
def _segment_timers() -> Iterator[dict[str, list[float]]]:
    """Wrap every segment and botocore's API call with a timer (ms per call) for as long as the block runs."""
    import importlib

    import botocore.client

    times: dict[str, list[float]] = collections.defaultdict(list)

    def timer(fn: Any, label: str) -> Any:
        @functools.wraps(fn)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            began = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                times[label].append((time.perf_counter() - began) * 1000)
        return wrapped

    originals = []
    for module_name, path, label in SEGMENTS:
        owner: Any = importlib.import_module(module_name)
        *parents, attribute = path.split(".")
        for parent in parents:
            owner = getattr(owner, parent)
        originals.append((owner, attribute, getattr(owner, attribute)))
        setattr(owner, attribute, timer(getattr(owner, attribute), label))
    api = botocore.client.BaseClient._make_api_call

    def timed_api(self: Any, operation: str, params: Any) -> Any:
        return timer(api, f"AWS {operation} (moto server)")(self, operation, params)

    botocore.client.BaseClient._make_api_call = timed_api
    try:
        yield times
    finally:
        botocore.client.BaseClient._make_api_call = api
        for owner, attribute, original in originals:
            setattr(owner, attribute, original)


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
                with _segment_timers() as times:
                    whole = timed(once, 100, 0)
                print(f"  where it goes (median ms, calls per request; whole call {statistics.median(whole):.2f} ms):",
                      flush=True)
                for label, values in sorted(times.items(), key=lambda kv: -statistics.median(kv[1])):
                    print(f"    {label:<54} {statistics.median(values):7.2f} ms   x{len(values) / len(whole):.1f}",
                          flush=True)


def main(fixtures: Path) -> None:
    print("== gateway ==", flush=True)
    in_process(fixtures)
    over_http(fixtures)
