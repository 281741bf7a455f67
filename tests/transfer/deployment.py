"""The deployment side of the transfer tests: the local stack (moto + template.yaml, in the test's process) behind
``scholar serve``'s key guard, and the calls a test makes to it as one user (one key, one library).

Only keys made with ``scholar keys add`` are admitted, so a wrong key is refused as a deployment refuses it; each
key is its own caller (``key:<NAME>``), so a test that takes a key of its own has a library of its own there.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from scholar.local import keys
from scholar.services.library.snapshot import parse_snapshot
from scholar.web import fetch
from tests.e2e.polling import finished
from tests.fakes.upstream import FakeUpstream
from tests.fakes.web import web_access
from tests.fixtures.servers import REPO, StackOptions

_NAMES = itertools.count(1)


@contextmanager
def running_deployment(fake_upstream: FakeUpstream, folder: Any,
                       settings: Mapping[str, str] | None = None) -> Iterator[Any]:
    """The local stack behind the key guard, with these more ``settings``; ``.key`` is a key it admits and
    ``.new_key()`` makes another (a caller with an empty library)."""
    from scholar.local.http_app import gateway_app
    from scholar.local.server import LocalServer  # starts moto: only here
    from scholar.local.serving import KeyGuard
    from scholar.store import aws as aws_clients

    patch = pytest.MonkeyPatch()
    patch.setenv("SCHOLAR_HOME", str(folder))  # where the guard reads keys
    environment = StackOptions(contact_email="push@example.org", retry_budget_s="1", web=True,
                               extra_env=dict(settings or {})).environment(fake_upstream)
    server = LocalServer(template=REPO / "template.yaml", extra_env=environment,
                         app_factory=lambda: KeyGuard(gateway_app()))
    fetch.set_web_access(web_access(fake_upstream))
    try:
        server.start()
        aws_clients.reset_clients()
        server.new_key = lambda: keys.add_key(f"user{next(_NAMES)}")  # type: ignore[attr-defined]
        server.key = server.new_key()  # type: ignore[attr-defined]  # the tests read both
        yield server
    finally:
        server.close()
        aws_clients.reset_clients()
        fetch.set_web_access(None)
        patch.undo()


def stop_serving(server: Any) -> None:
    """The deployment goes away: its HTTP front stops at once (connections are refused from now on, an open stream
    is dropped); its storage stays, for the test to read in this process."""
    front = server._server  # LocalServer stops both only in close(), which also forgets the storage
    front.should_exit = front.force_exit = True
    server._thread.join(timeout=30)
    assert not server._thread.is_alive()
    server._socket.close()


async def _remote(url: str, key: str, calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    async with (httpx2.AsyncClient(headers={"x-api-key": key}, trust_env=False, timeout=60) as http,
                Client(streamable_http_client(url, http_client=http)) as client):
        out = []
        for tool, arguments in calls:
            if tool == "wait":
                out.append(await finished(client, arguments["task_id"], within_s=120))
                continue
            if tool == "read":
                out.append(await _read(client, arguments["uri"]))
                continue
            result = await client.call_tool(tool, arguments)
            assert not result.is_error, result.structured_content
            out.append(result.structured_content)
        return out


async def _read(client: Client, uri: str) -> dict[str, Any]:
    """resources/read of ``uri``: its first content's sha256 (of a blob) or text, or the refusal's message."""
    try:
        read = await client.read_resource(uri)
    except MCPError as refused:
        return {"refused": refused.error.message}
    body = read.contents[0]
    blob = getattr(body, "blob", None)
    return {"sha256": hashlib.sha256(base64.b64decode(blob)).hexdigest()} if blob else {"text": body.text}


def remote(server: Any, *calls: tuple[str, dict[str, Any]], key: str | None = None) -> list[dict[str, Any]]:
    """The answers of ``calls`` (tool, arguments) made on the deployment with ``key`` (default: ``server.key``);
    ``("wait", {"task_id": …})`` waits for a task's end, ``("read", {"uri": …})`` reads a resource (``_read``)."""
    return anyio.run(_remote, server.url, key or server.key, list(calls))


def exported(server: Any, key: str | None = None) -> str:
    """The caller's whole library there as library_export format=jsonl, followed to its download link if stored."""
    (answer,) = remote(server, ("library_export", {"format": "jsonl"}), key=key)
    if answer.get("content") is not None:
        return answer["content"]
    got = httpx2.get(answer["url"], timeout=60, trust_env=False)
    got.raise_for_status()
    return got.text


OWN = ("pdfs", "md_path", "updated_at")  # each side's own: the files it holds, when it last wrote the item


def items_of(jsonl: str, without: tuple[str, ...] = ()) -> dict[str, dict[str, Any]]:
    """Every item of a snapshot by id, every field but the store's revision counter (and ``without``)."""
    return {item.item_id: item.model_dump(mode="json", exclude={"rev", *without})
            for item in parse_snapshot(jsonl).items}


def reading_pdfs(ids: Iterable[str]) -> list[tuple[str, dict[str, Any]]]:
    """The calls for ``remote`` that read each item's PDF there: resources/read ``scholar://library/{item_id}/pdf``
    (its one record's file: each item here holds one record at most)."""
    return [("read", {"uri": f"scholar://library/{item_id}/pdf"}) for item_id in ids]


def pdfs_held(jsonl: str, ids: Iterable[str], reads: list[dict[str, Any]]) -> dict[str, tuple[list[str], str | None]]:
    """For each of ``ids``: the sha256 of its PDF records in ``jsonl`` and of the PDF ``reads`` read back (None: no
    file there, as for a record whose file the deployment does not hold)."""
    held = items_of(jsonl)
    return {item_id: ([pdf["sha256"] for pdf in held[item_id]["pdfs"]], read.get("sha256"))
            for item_id, read in zip(ids, reads, strict=True)}


def files_behind_records(held: dict[str, tuple[list[str], str | None]]) -> bool:
    """Whether every PDF record of ``pdfs_held`` has its file there, the very one. (A file read without a record is
    one kept between the export and the read: the resource reads a record's file.)"""
    return all(records == [read] for records, read in held.values() if records)


def push(machine: Any, server: Any, *options: str, key: str | None = None,
         direction: str = "push") -> tuple[int, dict[str, Any]]:
    """``scholar library push|pull URL --api-key KEY --json OPTIONS`` on ``machine``: its exit status and report."""
    done = machine.run("cli", "library", direction, server.url, "--api-key", key or server.key, "--json", *options)
    assert done.stdout, done.stderr[-3000:]
    return done.returncode, json.loads(done.stdout)
