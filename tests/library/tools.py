"""Calling the library_* tools as the gateway does: a dispatched event through the research function."""

from __future__ import annotations

import jsonschema
import pytest

from functions.research.app import lambda_handler
from scholar.families import get_tool
from scholar.runtime.context import LocalContext
from scholar.services.library import index_cache


@pytest.fixture
def fresh_index(tmp_path):
    """A holder of its own per test: a warm index of an earlier test's bucket would answer from stale data."""
    index_cache.set_holder(index_cache.IndexHolder(directory=tmp_path / "index"))
    yield
    index_cache.set_holder(None)


def call(tool: str, principal: str, **arguments) -> dict:
    """The tool's answer: ``{"ok": True, "result": …}`` or ``{"ok": False, "error": …}``; results match outputSchema."""
    answer = lambda_handler({"tool": tool, "arguments": arguments, "principal": principal,
                             "request_id": f"req-{tool}"}, LocalContext())
    body = answer["result"] if answer["ok"] else {"error": answer["error"]}
    jsonschema.validate({k: v for k, v in body.items() if v is not None}, get_tool(tool).output_schema())
    return answer
