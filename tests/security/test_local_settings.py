"""Settings the user gives to ``make serve`` win over the local stack's defaults (the template's values)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from scholar.core.errors import INVALID_ARGUMENT
from scholar.families import all_tools
from scholar.gateway.mcp.tools import WRITE_TAG
from scholar.sources import http
from tests.fakes.upstream import FakeUpstream
from tests.fixtures.env import Env

TEMPLATE = Path(__file__).resolve().parents[2] / "template.yaml"
CONTACT = "reader@example.org"
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@pytest.fixture(scope="module")
def user_env() -> Iterator[Env]:
    helper = Env()
    yield helper
    helper.undo()


@pytest.fixture(scope="module")
def served(fake_server: FakeUpstream, user_env: Env) -> Iterator[Any]:
    """``SCHOLAR_READ_ONLY=true SCHOLAR_CONTACT_EMAIL=… make serve``: the settings come from the user's environment."""
    from scholar.local.server import LocalServer
    from scholar.store import aws

    user_env.set(SCHOLAR_READ_ONLY="true", SCHOLAR_CONTACT_EMAIL=CONTACT, SCHOLAR_PACE_SCALE="0",
                 SCHOLAR_RETRY_BUDGET_S="0", SCHOLAR_UPSTREAM_PROXY_BASE=fake_server.base_url)
    server = LocalServer(template=TEMPLATE)
    server.start()
    aws.reset_clients()
    http.set_transport_factory(None)  # clients made earlier in this process carry an older User-Agent
    try:
        yield server
    finally:
        server.close()
        aws.reset_clients()
        http.set_transport_factory(None)


def _post(server: Any, message: dict[str, Any]) -> dict[str, Any]:
    response = httpx.post(server.url, content=json.dumps(message), headers=HEADERS, timeout=60)
    assert response.status_code == 200
    return response.json()


def test_read_only_given_by_the_user_hides_the_write_tools(served: Any) -> None:
    answer = _post(served, {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
    listed = {tool["name"] for tool in answer["result"]["tools"]}
    write_tools = {name for name, spec in all_tools().items() if WRITE_TAG in spec.tags}
    assert write_tools and not listed & write_tools
    assert "get_paper" in listed
    assert served.stack.env["SCHOLAR_READ_ONLY"] == "true"


def test_the_contact_email_given_by_the_user_reaches_the_upstream_user_agent(
    served: Any, fake_server: FakeUpstream
) -> None:
    fake_server.reset()
    call = {"name": "get_paper", "arguments": {"identifier": "10.1073/pnas.1414271111"}}
    _post(served, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
    agents = {dict(r.headers).get("user-agent", "") for r in fake_server.requests}
    assert agents and all(f"mailto:{CONTACT}" in agent for agent in agents)


def test_the_stack_keeps_its_own_resource_names(served: Any) -> None:
    from scholar.core.config import get_settings

    assert get_settings().resources.task_table == served.stack.env["SCHOLAR_TASK_TABLE"]
    assert get_settings().contact_email == CONTACT


@pytest.mark.parametrize(
    "identifier",
    ["10.1234/../../../../recommendations/v1/papers/forpaper/10.2139/ssrn.2250500", "10.1234/a\u0000b",
     "10.1234/a\u007fb"],
)
def test_through_the_local_server_a_hostile_identifier_is_an_invalid_argument_and_nothing_is_sent(
    served: Any, fake_server: FakeUpstream, identifier: str
) -> None:
    fake_server.reset()
    call = {"name": "get_paper", "arguments": {"identifier": identifier}}
    answer = _post(served, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call})
    assert answer["result"]["isError"] is True
    assert answer["result"]["structuredContent"]["error"]["code"] == INVALID_ARGUMENT
    assert fake_server.requests == []
