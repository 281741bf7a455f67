"""Schema fuzzing of every tool through the gateway (the local HTTP server), with hypothesis-jsonschema.

For every tool: arguments drawn from its own inputSchema, and arguments that break it (a parameter of the
wrong JSON type, an unknown parameter). Never a 5xx, never ``internal``; every rejection is an
``invalid_argument`` that names the field; every answer matches the tool's outputSchema. Examples are
bounded and derandomised (the same draws every run). Tools that start background work (PDF pipeline,
standards sync and conversion) and the one that fetches a caller's URL get only the breaking arguments:
valid draws would start executions or resolve arbitrary host names.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from jsonschema import Draft202012Validator

from scholar.core.errors import INTERNAL, INVALID_ARGUMENT
from scholar.families import all_tools
from tests.reliability.harness import HEADERS, Answer, call

pytestmark = pytest.mark.e2e

VALID_EXAMPLES = 4
INVALID_EXAMPLES = 4
WRONG_VALUE = {"nested": [1]}  # an object: no parameter of any tool takes one
TOOLS = sorted(all_tools())
BREAKING_ONLY = frozenset(
    name for name, spec in all_tools().items() if spec.family in ("pdf", "standards") or name == "download_paper"
)
COUNTS: Counter[str] = Counter()  # the figures in docs/reliability.md (printed at the end with -s)
FUZZ = settings(max_examples=VALID_EXAMPLES, deadline=None, database=None, derandomize=True,
                suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module", autouse=True)
def _report_counts():
    yield
    print(f"\nschema fuzzing: {dict(sorted(COUNTS.items()))}")


@pytest.fixture(scope="module")
def listed(local_server) -> frozenset[str]:
    """The tools this server lists: the patents tools are hidden (and refused as unknown) without EPO OPS keys."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    with httpx.Client(trust_env=False, timeout=30) as client:
        answer = client.post(local_server.url, json=body, headers=HEADERS).json()
    return frozenset(tool["name"] for tool in answer["result"]["tools"])


def _takes_objects(schema: dict[str, Any]) -> bool:
    forms = schema.get("anyOf", [schema])
    return any(f.get("type") in (None, "object") and "enum" not in f and "const" not in f for f in forms)


def breaking_arguments(schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments that break ``schema``: one parameter given an object, or a parameter the tool does not have."""
    props = schema.get("properties", {})
    typed = sorted(name for name, sub in props.items() if not _takes_objects(sub))
    unknown = st.just({"no_such_parameter": 1})
    if not typed:
        return unknown
    return st.one_of(unknown, st.sampled_from(typed).map(lambda name: {name: WRONG_VALUE}))


def check_answer(tool: str, answer: Answer) -> None:
    assert answer.http_status == 200 and answer.rpc_error is None, answer
    output = Draft202012Validator(all_tools()[tool].output_schema())
    assert not list(output.iter_errors(answer.structured)), answer
    if answer.is_error:
        assert answer.error["code"] != INTERNAL, answer


@pytest.mark.parametrize("tool", TOOLS)
def test_valid_draws_of_every_tool_answer_without_5xx_or_internal(local_server, tool):
    if tool in BREAKING_ONLY:
        pytest.skip("starts background work or fetches a caller's URL: fuzzed with breaking arguments only")
    schema = all_tools()[tool].input_schema()

    @FUZZ
    @given(from_schema(schema))
    def check(arguments: dict[str, Any]) -> None:
        answer = call(local_server.url, tool, arguments)
        check_answer(tool, answer)
        COUNTS["valid"] += 1
        COUNTS["valid_rejected" if answer.is_error and answer.error["code"] == INVALID_ARGUMENT else "valid_ok"] += 1
        if answer.is_error and answer.error["code"] == INVALID_ARGUMENT:
            assert answer.error.get("details", {}).get("field"), answer

    check()


@pytest.mark.parametrize("tool", TOOLS)
def test_breaking_arguments_are_rejected_naming_the_field(local_server, listed, tool):
    schema = all_tools()[tool].input_schema()

    @settings(FUZZ, max_examples=INVALID_EXAMPLES)
    @given(breaking_arguments(schema))
    def check(arguments: dict[str, Any]) -> None:
        answer = call(local_server.url, tool, arguments)
        check_answer(tool, answer)
        assert answer.is_error and answer.error["code"] == INVALID_ARGUMENT, answer
        field = answer.error.get("details", {}).get("field")
        assert field and field != "(arguments)", answer
        bad = next(iter(arguments)) if tool in listed else "name"  # a hidden tool is refused by its name first
        named = [field, *(problem["field"] for problem in answer.error["details"].get("errors", []))]
        assert any(name.split(".")[0].split("[")[0] == bad for name in named), answer
        COUNTS["breaking"] += 1

    check()
