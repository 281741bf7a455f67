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
import threading
from pathlib import Path
from typing import Any

from scholar.core.errors import UNAVAILABLE

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
CALL = {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "library_list", "arguments": {}}}

ANSWER_TIMEOUT_S = 60
# line sent → (code, id) of the error it must get
INVALID = [
    ('{"jsonrpc": "2.0", "id": 11, "method": "ping", "params": "x"}', -32600, 11),
    ('{"jsonrpc": "1.0", "id": 12, "method": "ping"}', -32600, 12),
    ('[{"jsonrpc": "2.0", "id": 13, "method": "ping"}]', -32600, None),
    ("this is not json {", -32700, None),
    ('"a string"', -32600, None),
    ('{"jsonrpc": "2.0", "id": "s14", "method": 7}', -32600, "s14"),
]


def _session(home: Path, lines: list[str], answers: int) -> list[dict[str, Any]]:
    """Send the handshake and ``lines``, read ``answers`` answers after the handshake's, then close stdin (closing
    it first would end the session before the last requests are answered)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCHOLAR_") and k != "PYTHONPATH"}
    env.update(SCHOLAR_HOME=str(home), SCHOLAR_BACKEND="local")
    sent = [json.dumps(INITIALIZE), json.dumps(INITIALIZED), *lines]
    server = subprocess.Popen(
        [sys.executable, "-m", "scholar.local", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert server.stdin is not None and server.stdout is not None
    # an unanswered line must fail the test, not hang it: the server this test started is killed after a while
    watchdog = threading.Timer(ANSWER_TIMEOUT_S, server.kill)
    watchdog.start()
    try:
        server.stdin.write("\n".join(sent) + "\n")
        server.stdin.flush()
        read = [json.loads(server.stdout.readline() or "null") for _ in range(answers + 1)]
    finally:
        watchdog.cancel()
        server.stdin.close()
        server.wait(timeout=120)
        server.stdout.close()
    assert None not in read, read  # the server ended before answering all
    return read[1:]


def _corrupt(home: Path) -> Path:
    home.mkdir()
    (home / "scholar.sqlite3").write_text("not a database, a hostile write\n" * 100)
    return home / "scholar.sqlite3"


def _file(home: Path) -> Path:
    home.write_text("a file where the data folder should be\n")
    return home


def _typed(answer: dict[str, Any], reason: str, named: Path) -> None:
    result = answer["result"]
    error = result["structuredContent"]["error"]
    assert result["isError"] is True
    assert (error["code"], error["reason"], error["retryable"]) == (UNAVAILABLE, reason, False)
    assert str(named) in error["message"]


def test_every_line_is_answered_invalid_ones_as_the_spec_says_and_a_corrupt_store_typed(tmp_path):
    # one session (a start costs seconds): the invalid lines, and calls on a data folder whose database is corrupt
    home = tmp_path / "home"
    named = _corrupt(home)
    calls = [json.dumps(CALL | {"id": 21}), json.dumps(CALL | {"id": 22})]
    answers = _session(home, [calls[0], *(line for line, _, _ in INVALID), calls[1]], len(INVALID) + 2)
    errors = [(a["error"]["code"], a["id"]) for a in answers if "error" in a]
    assert errors == [(code, request_id) for _, code, request_id in INVALID]
    by_id = {a["id"]: a for a in answers if "result" in a}
    _typed(by_id[21], "store_corrupt", named)
    _typed(by_id[22], "store_corrupt", named)  # after the invalid lines, and as the first: never internal


def test_a_file_where_the_data_folder_should_be_reaches_every_tool_call_typed(tmp_path):
    home = tmp_path / "home"
    named = _file(home)
    answers = _session(home, [json.dumps(CALL | {"id": 21}), json.dumps(CALL | {"id": 22})], 2)
    by_id = {a["id"]: a for a in answers}
    _typed(by_id[21], "store_not_a_folder", named)
    _typed(by_id[22], "store_not_a_folder", named)
