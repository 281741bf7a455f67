"""Operations through the local server: get_server_info, source_health after a source breaks, and make doctor."""

from __future__ import annotations

import io
import time
from typing import Any

import anyio
import pytest
from mcp import Client

from scholar.local.doctor_cli import run_doctor
from scholar.services.health.records import rows_of
from scholar.store.usage import UsageStore
from tests.health.synthetic import synthetic_history

pytestmark = pytest.mark.e2e

DOIS = ("10.1038/nature12373", "10.1016/j.envint.2020.105730")


async def _call(url: str, tool: str, args: dict[str, Any]) -> Any:
    async with Client(url) as client:
        return await client.call_tool(tool, args)


def call(server: Any, tool: str, args: dict[str, Any]) -> Any:
    return anyio.run(_call, server.url, tool, args)


def test_both_operations_tools_are_listed_read_only(local_server):
    async def main():
        async with Client(local_server.url) as client:
            return {t.name: t for t in (await client.list_tools()).tools}

    tools = anyio.run(main)
    for name in ("source_health", "get_server_info"):
        assert tools[name].annotations.read_only_hint is True
        assert tools[name].annotations.open_world_hint is False


def test_get_server_info_answers_with_the_caller_s_hashed_principal(local_server):
    result = call(local_server, "get_server_info", {})
    assert not result.is_error, result.content
    info = result.structured_content
    assert info["principal"] and info["principal"] != "local"
    assert {s["name"]: s["endpoint"] for s in info["sources"]}["s2"] == "proxy"  # the fake upstream
    assert "2025-11-25" in info["protocol_versions"] and "research" in [f["name"] for f in info["families"]]


def test_a_source_that_starts_answering_503_is_reported_failing(local_server, fake):
    # Given a healthy day of Unpaywall history (synthetic: usage records are ours, there is nothing to record)
    UsageStore().put(
        row for r in synthetic_history("unpaywall", time.time(), hours=30, per_hour=2) for row in rows_of(r)
    )
    # When OpenAlex and Unpaywall start answering 503, enrich_paper asks Unpaywall after OpenAlex fails
    fake.inject("openalex", status=503, headers={}, times=None)
    fake.inject("unpaywall", status=503, headers={}, times=None)
    for doi in DOIS:
        result = call(local_server, "enrich_paper", {"identifier": doi, "fields": ["oa_status"]})
        assert result.is_error
    assert fake.count(source="unpaywall") >= 2
    # Then source_health names it, with the 503s as evidence
    health = call(local_server, "source_health", {"source": "unpaywall"})
    assert not health.is_error, health.content
    (unpaywall,) = health.structured_content["sources"]
    assert unpaywall["status"] == "failing"
    assert unpaywall["findings"][0]["kind"] in ("went_quiet", "started_failing")
    assert unpaywall["last_hour"]["error_mix"]["503"] >= 2
    assert unpaywall["last_7d"]["calls"] >= 60


def test_make_doctor_names_the_source_the_fake_upstream_broke(local_server, fake):
    fake.inject("crossref", status=503, headers={}, times=None)
    asked = fake.count(source="crossref")
    out = io.StringIO()
    assert run_doctor(out, network=True) == 1
    lines = {line.split()[0]: line for line in out.getvalue().splitlines()[1:-1]}
    assert "upstream_error HTTP 503" in lines["crossref"]
    assert lines["s2"].split()[1:4] == ["ok", "HTTP", "200"] or lines["s2"].split()[1:3] == ["used", "lately"]
    assert fake.count(source="crossref") == asked + 1  # one probe, no retries


def test_doctor_without_network_sends_nothing_and_judges_from_the_records(local_server, fake):
    before = fake.count()
    out = io.StringIO()
    run_doctor(out)
    assert fake.count() == before
    rows = out.getvalue().splitlines()
    assert rows[0].split()[:3] == ["source", "probe", "status"]
    assert {row.split()[1:3][0] for row in rows[1:-1]} == {"not"} and "0 sources probed" in rows[-1]
