"""The local server in front of the fake upstream, as the end-to-end and reliability suites run it.

One LocalStack may run per process, so the suites hold it at package scope and close it before the next.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from tests.fakes.upstream import FakeUpstream

REPO = Path(__file__).resolve().parents[1]


@contextlib.contextmanager
def running_local_server(fake_upstream: FakeUpstream, *, retry_budget_s: str, contact_email: str) -> Iterator[object]:
    """Start the local server with every upstream at ``fake_upstream`` and pacing off; close it on exit."""
    from scholar.local.server import LocalServer  # noqa: PLC0415  # starts moto: only where a suite needs it
    from scholar.store import aws  # noqa: PLC0415  # the clients are reset around the stack's life

    env = {
        "SCHOLAR_UPSTREAM_PROXY_BASE": fake_upstream.base_url,
        "SCHOLAR_PACE_SCALE": "0",
        "SCHOLAR_SEARCH_BUDGET_SCALE": "20",  # a loaded test machine: research search's deadlines twenty times as long
        "SCHOLAR_RETRY_BUDGET_S": retry_budget_s,
        "SCHOLAR_RETRY_WAIT_S": "1",
        "SCHOLAR_CONTACT_EMAIL": contact_email,
    }
    server = LocalServer(template=REPO / "template.yaml", extra_env=env)
    server.start()
    aws.reset_clients()
    try:
        yield server
    finally:
        server.close()
        aws.reset_clients()
