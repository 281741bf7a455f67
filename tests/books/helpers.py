"""Helpers of the books tests: recorded bodies, responses, and calling a tool the way the dispatcher does."""

from __future__ import annotations

import json
from typing import Any

import httpx

from scholar.core.catalogue import CallContext
from scholar.families.books.handlers import HANDLERS
from scholar.families.books.spec import TOOLS
from tests.fixtures.waiting import run
from tests.fixtures_dir import fixtures_dir

CONTACT = "books-tests@example.org"
CTX = CallContext(principal="test", request_id="req-books")
SPECS = {spec.name: spec for spec in TOOLS}


def recorded(name: str) -> bytes:
    """A recorded upstream body from ``<fixtures>/upstream/<name>``."""
    return (fixtures_dir() / "upstream" / name).read_bytes()


def json_response(body: bytes | dict[str, Any], status: int = 200) -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx.Response(status, content=content, headers={"content-type": "application/json"})


def call(tool: str, **arguments: Any) -> Any:
    """Validate ``arguments`` with the tool's input model and run its handler on a fresh event loop."""
    args = SPECS[tool].input_model.model_validate(arguments)
    return run(HANDLERS[tool](args, CTX))
