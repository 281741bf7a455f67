"""``scholar mcp`` answers every line a client sends (issue #40 item 5), as a client meets it: raw lines over a
subprocess's stdin (no PYTHONPATH: the installed package), answers read off its stdout.

A line that is not JSON-RPC 2.0 gets the error the JSON-RPC spec gives (-32700 with id null; -32600 with the
request's id, or null); before, it got no answer and the client waited forever. A data folder the store cannot open
(a corrupt database, a file where the folder should be) reaches each tools/call as the store's typed envelope, the
same the CLI prints; before, the first got a JSON-RPC error with code 0 and the next ``internal``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scholar.core.errors import UNAVAILABLE

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
CALL = {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "library_list", "arguments": {}}}

# line sent → (code, id) of the error it must get
INVALID = [
    ('{"jsonrpc": "2.0", "id": 11, "method": "ping", "params": "x"}', -32600, 11),
    ('{"jsonrpc": "1.0", "id": 12, "method": "ping"}', -32600, 12),
    ('[{"jsonrpc": "2.0", "id": 13, "method": "ping"}]', -32600, None),
    ("this is not json {", -32700, None),
    ('"a string"', -32600, None),
    ('{"jsonrpc": "2.0", "id": "s14", "method": 7}', -32600, "s14"),
]


def _session(home: Path, lines: list[str]) -> list[dict[str, Any]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCHOLAR_") and k != "PYTHONPATH"}
    env.update(SCHOLAR_HOME=str(home), SCHOLAR_BACKEND="local")
    sent = [
        json.dumps(INITIALIZE),
        json.dumps(INITIALIZED),
        *lines,
        json.dumps({"jsonrpc": "2.0", "id": 99, "method": "ping"}),
    ]
    done = subprocess.run(
        [sys.executable, "-m", "scholar.local", "mcp"],
        input="\n".join(sent) + "\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_every_invalid_line_gets_the_json_rpc_error_the_spec_gives(tmp_path):
    answers = _session(tmp_path / "home", [line for line, _, _ in INVALID])
    errors = [(a["error"]["code"], a["id"]) for a in answers if "error" in a]
    assert errors == [(code, request_id) for _, code, request_id in INVALID]
    assert answers[-1] == {"jsonrpc": "2.0", "id": 99, "result": {}}  # the session goes on


def _corrupt(home: Path) -> Path:
    home.mkdir()
    (home / "scholar.sqlite3").write_text("not a database, a hostile write\n" * 100)
    return home / "scholar.sqlite3"


def _file(home: Path) -> Path:
    home.write_text("a file where the data folder should be\n")
    return home


@pytest.mark.parametrize(("spoil", "reason"), [(_corrupt, "store_corrupt"), (_file, "store_not_a_folder")])
def test_a_store_that_cannot_open_reaches_every_tool_call_as_its_typed_error(tmp_path, spoil, reason):
    home = tmp_path / "home"
    named = spoil(home)
    answers = _session(home, [json.dumps(CALL | {"id": 21}), json.dumps(CALL | {"id": 22})])
    by_id = {a["id"]: a for a in answers}
    for request_id in (21, 22):
        result = by_id[request_id]["result"]
        error = result["structuredContent"]["error"]
        assert result["isError"] is True
        assert (error["code"], error["reason"], error["retryable"]) == (UNAVAILABLE, reason, False)
        assert str(named) in error["message"]
