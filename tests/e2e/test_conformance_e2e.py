"""The official conformance suite's server scenarios against the local server, in both protocol eras.

One test per scenario × era of issue #23's list (the scenarios that apply to a real server), each asserting the
suite's checks.json holds no FAILURE and no WARNING. Scenarios that call the suite's own fixture tools or prompts
(``test_simple_text``, ``test_prompt_with_arguments`` …) do not apply; ``server-stateless`` holds two checks that
call its fixture tool ``test_missing_capability``, named below with that reason. The suite calls without an
x-api-key, so it is the ``local`` caller; one paper in its library gives ``caching`` a resource to read.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import Client

from tests.conformance.runner import Result, run_server

pytestmark = pytest.mark.e2e

LEGACY, MODERN = "2025-11-25", "2026-07-28"
SCENARIOS = [
    (LEGACY, "server-initialize"), (LEGACY, "ping"),
    *((era, name) for era in (LEGACY, MODERN) for name in (
        "tools-list", "tools-call-error", "dns-rebinding-protection", "resources-list", "prompts-list")),
    (MODERN, "server-stateless"), (MODERN, "sep-2164-resource-not-found"), (MODERN, "caching"),
    (MODERN, "http-header-validation"),
]
# Checks that exercise the suite's own fixture tool (test_missing_capability), which a real server does not have.
FIXTURE_CHECKS = {"sep-2575-server-rejects-undeclared-capability", "sep-2575-missing-capability-http-400"}
PNAS_DOI = "10.1073/pnas.1414271111"


@pytest.fixture(scope="module")
def conformance_url(local_server: Any) -> str:
    """The local server's URL, with one paper in the ``local`` caller's library (caching reads a resource)."""

    async def keep_one() -> None:
        async with Client(local_server.url) as client:
            added = await client.call_tool("library_add", {"identifier": PNAS_DOI, "collection": "conformance"})
            assert not added.is_error, added.structured_content

    anyio.run(keep_one)
    return local_server.url


@pytest.fixture(scope="module")
def suite(conformance_url: str) -> Any:
    """``suite(scenario, era)``: the suite's result, run once per scenario and era in this module."""
    results: dict[tuple[str, str], Result] = {}

    def run(scenario: str, era: str) -> Result:
        if (scenario, era) not in results:
            results[scenario, era] = run_server(conformance_url, scenario, era)
        return results[scenario, era]

    return run


def _problems(result: Result) -> list[tuple[str, str, str]]:
    return [(c["id"], c["status"], c.get("errorMessage") or "") for c in result.with_status("FAILURE", "WARNING")
            if c["id"] not in FIXTURE_CHECKS]


@pytest.mark.parametrize(("era", "scenario"), SCENARIOS, ids=[f"{s}@{e}" for e, s in SCENARIOS])
def test_the_server_passes_the_conformance_scenario(suite, era, scenario):
    result = suite(scenario, era)

    assert result.checks, "\n".join(result.output[-40:])
    assert _problems(result) == [], "\n".join(result.output[-40:])


def test_the_only_server_stateless_checks_that_fail_call_the_suites_fixture_tool(suite):
    failed = suite("server-stateless", MODERN).with_status("FAILURE", "WARNING")

    assert {c["id"] for c in failed} <= FIXTURE_CHECKS
    assert all("test_missing_capability" in (c.get("errorMessage") or "") for c in failed)


def test_caching_reads_a_resource_and_every_list_carries_its_hints(suite):
    checks = {c["id"]: c for c in suite("caching", MODERN).checks}

    assert checks["sep-2549-resources-read-caching-hints"]["status"] == "SUCCESS"
    assert checks["sep-2549-resources-read-caching-hints"]["details"]["cacheScope"] == "private"
    assert checks["sep-2549-resources-list-caching-hints"]["details"]["cacheScope"] == "private"
    for check in ("sep-2549-prompts-list-caching-hints", "sep-2549-resources-templates-list-caching-hints",
                  "sep-2549-tools-list-caching-hints"):
        assert checks[check]["details"]["cacheScope"] == "public", check


def test_an_unknown_resource_is_minus_32602_with_its_uri_not_a_warning(suite):
    checks = {c["id"]: c["status"] for c in suite("sep-2164-resource-not-found", MODERN).checks}
    wanted = ("sep-2164-no-empty-contents", "sep-2164-error-code", "sep-2164-data-uri")

    assert {check: checks.get(check) for check in wanted} == dict.fromkeys(wanted, "SUCCESS")
