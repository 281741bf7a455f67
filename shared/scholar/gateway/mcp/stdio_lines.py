"""The lines a stdio client sends, checked as JSON-RPC 2.0 before the SDK reads them, so none goes unanswered.

The SDK's stdio transport drops a line it cannot read as a JSON-RPC message (it logs it), and a client that sent
it waits forever. Here each such line is answered as JSON-RPC 2.0 says (section 5.1): text that is not JSON gets
-32700 (parse error, id null); JSON that is not a valid message (``jsonrpc`` other than "2.0", ``params`` not an
object or array, a batch, which MCP no longer accepts since 2025-06-18) gets -32600 (invalid request) with the
request's id when it has a valid one, else null. Valid lines go on to the SDK untouched.

The non-obvious constraint: stdin is read here, not by the SDK (it gets the checked lines), so fd 0 is taken here
the way the SDK takes it: read through a private duplicate while fd 0 points at the null device, so a child
process reads end-of-file instead of the client's messages; fd 0 is restored on exit.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

import anyio
from anyio.abc import ObjectSendStream
from mcp import types
from mcp.shared.message import SessionMessage

__all__ = ["CheckedLines", "claimed_stdin", "refusal"]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def _error(code: int, message: str, request_id: Any = None) -> types.JSONRPCError:
    valid = request_id if isinstance(request_id, str | int) and not isinstance(request_id, bool) else None
    return types.JSONRPCError(jsonrpc="2.0", id=valid, error=types.ErrorData(code=code, message=message))


def refusal(line: str) -> types.JSONRPCError | None:
    """The error answering ``line``, or None when it is a JSON-RPC message (or blank: nothing to answer)."""
    if not line.strip():
        return None
    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        return None
    except ValueError:
        pass
    try:
        parsed = json.loads(line)
    except ValueError:
        return _error(PARSE_ERROR, "Parse error: the line is not JSON")
    if isinstance(parsed, list):
        return _error(
            INVALID_REQUEST,
            "Invalid Request: batches are not accepted (MCP 2025-06-18 and later); send one message per line",
        )
    if not isinstance(parsed, dict):
        return _error(INVALID_REQUEST, "Invalid Request: a message is a JSON object")
    if parsed.get("jsonrpc") != "2.0":
        return _error(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be exactly "2.0"', parsed.get("id"))
    return _error(
        INVALID_REQUEST,
        "Invalid Request: not a JSON-RPC request, notification or response (method a "
        "string, params an object, id a string or integer)",
        parsed.get("id"),
    )


class CheckedLines:
    """stdin's lines for the SDK's transport: valid ones passed on, the others answered on ``write``.

    ``attach`` gives it the transport's write stream once the transport is open; a refusal read before then waits.
    """

    def __init__(self, lines: anyio.AsyncFile[str]) -> None:
        self._lines = lines
        self._write: ObjectSendStream[SessionMessage] | None = None
        self._ready = anyio.Event()

    def attach(self, write: ObjectSendStream[SessionMessage]) -> None:
        self._write = write
        self._ready.set()

    async def __aiter__(self) -> AsyncIterator[str]:
        async for line in self._lines:
            answer = refusal(line)
            if answer is None:
                yield line
                continue
            await self._ready.wait()
            assert self._write is not None  # set with the event
            try:
                await self._write.send(SessionMessage(answer))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return


@contextmanager
def claimed_stdin() -> Iterator[anyio.AsyncFile[str]]:
    """The client's stdin as UTF-8 text lines, with fd 0 pointing at the null device until the block ends."""
    private, saved = os.dup(0), os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        with open(private, encoding="utf-8", errors="replace", newline="\n") as text:
            yield anyio.wrap_file(text)
    finally:
        os.dup2(saved, 0)
        os.close(saved)
