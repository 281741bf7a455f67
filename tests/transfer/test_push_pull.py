"""``scholar library push`` / ``pull`` end to end: a machine's library (tags, notes, collections, an empty one, a
kept PDF) pushed to a deployment by API key, every field checked there, pushed again (nothing written), then
pulled into an empty machine and checked field by field against the original. The refusals run the real CLI.

The deployment is the local stack behind ``scholar serve``'s key guard (only keys made with ``scholar keys add``
are admitted), so a wrong key is refused as a deployment refuses it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from scholar.local import keys
from scholar.local.cli.output import EXIT_CODES, EXIT_OK
from scholar.services.library.snapshot import parse_snapshot
from scholar.web import fetch
from tests.e2e.polling import finished
from tests.fakes.upstream import FakeUpstream
from tests.fakes.web import web_access
from tests.fixtures.servers import REPO, StackOptions

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def deployment(fake_upstream: FakeUpstream, pnas_pdf: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The local stack behind the key guard; ``.key`` is the one key it admits."""
    from scholar.local.server import LocalServer, _gateway_app  # noqa: PLC0415  # starts moto: only here
    from scholar.local.serving import KeyGuard  # noqa: PLC0415
    from scholar.store import aws as aws_clients  # noqa: PLC0415

    patch = pytest.MonkeyPatch()
    patch.setenv("SCHOLAR_HOME", str(tmp_path_factory.mktemp("deployment-keys")))  # where the guard reads keys
    key = keys.add_key("alice")
    environment = StackOptions(contact_email="push@example.org", retry_budget_s="1", web=True).environment(
        fake_upstream)
    server = LocalServer(template=REPO / "template.yaml", extra_env=environment,
                         app_factory=lambda: KeyGuard(_gateway_app()))
    fetch.set_web_access(web_access(fake_upstream))
    try:
        server.start()
        aws_clients.reset_clients()
        server.key = key  # type: ignore[attr-defined]  # the test reads it
        yield server
    finally:
        server.close()
        aws_clients.reset_clients()
        fetch.set_web_access(None)
        patch.undo()


async def _remote(url: str, key: str, calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    async with (httpx2.AsyncClient(headers={"x-api-key": key}, trust_env=False, timeout=60) as http,
                Client(streamable_http_client(url, http_client=http)) as client):
        out = []
        for tool, arguments in calls:
            if tool == "wait":
                out.append(await finished(client, arguments["task_id"], within_s=120))
                continue
            result = await client.call_tool(tool, arguments)
            assert not result.is_error, result.structured_content
            out.append(result.structured_content)
        return out


def remote(server: Any, *calls: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return anyio.run(_remote, server.url, server.key, list(calls))


def items_of(jsonl: str) -> dict[str, dict[str, Any]]:
    """Every item of a snapshot by id, every field but the store's revision counter."""
    return {item.item_id: item.model_dump(mode="json", exclude={"rev"}) for item in parse_snapshot(jsonl).items}


def push(machine: Any, server: Any, *options: str) -> tuple[int, dict[str, Any]]:
    done = machine.run("cli", "library", "push", server.url, "--api-key", server.key, "--json", *options)
    assert done.stdout, done.stderr[-3000:]
    return done.returncode, json.loads(done.stdout)


def test_a_library_goes_to_the_deployment_and_back_with_every_field(deployment, new_machine):
    # Given a machine whose library holds tags, notes, two collections, an empty one and a kept PDF
    laptop = new_machine()
    seeded = laptop.answer("seed")
    original = items_of(laptop.answer("export")["content"])
    assert len(original) == 2 and any(item["pdfs"] for item in original.values())

    # When it is pushed by API key
    status, first = push(laptop, deployment)

    # Then every item is created there with every field, the collections too, and the PDF is queued to be kept there
    assert status == EXIT_OK, first
    assert first["counts"] == {"created": 2, "updated": 0, "unchanged": 0, "kept_newer": 0, "failed": 0}
    assert set(first["collections_created"]) == {"reading", "tissue", "empty-shelf"}
    kept = [item["pdf"] for item in first["items"] if "pdf" in item]
    assert [pdf["status"] for pdf in kept] == ["queued"]
    done, exported, collections = remote(deployment, ("wait", {"task_id": kept[0]["task_ids"][0]}),
                                         ("library_export", {"format": "jsonl"}),
                                         ("library_collections", {"action": "list"}))
    assert done["status"] == "completed" and done["result"]["sha256"] == seeded["kept"]
    assert items_of(exported["content"]) == original  # kept again there: the same PDF, nothing else changed
    assert {c["name"] for c in collections["collections"]} >= {"reading", "tissue", "empty-shelf"}

    # When it is pushed again, Then nothing is written and the PDF is answered as kept
    status, second = push(laptop, deployment)
    assert status == EXIT_OK
    assert second["counts"]["unchanged"] == 2 and sum(second["counts"].values()) == 2
    assert second["collections_created"] == []
    assert [item["pdf"]["status"] for item in second["items"] if "pdf" in item] == ["kept"]

    # When an empty machine pulls, Then it holds the original library, field by field, its PDF kept again here
    desk = new_machine()
    done = desk.run("cli", "library", "pull", deployment.url, "--api-key", deployment.key, "--json")
    assert done.returncode == EXIT_OK, done.stderr[-3000:]
    pulled = json.loads(done.stdout)
    assert pulled["counts"]["created"] == 2 and pulled["counts"]["failed"] == 0
    assert [item["pdf"]["status"] for item in pulled["items"] if "pdf" in item] == ["kept"]
    assert items_of(desk.answer("export")["content"]) == original


def test_a_dry_run_plans_and_writes_nothing(deployment, new_machine):
    laptop = new_machine()
    laptop.answer("seed-one")

    status, plan = push(laptop, deployment, "--dry-run")

    assert status == EXIT_OK and plan["dry_run"] is True
    assert [item["outcome"] for item in plan["items"]] in (["created"], ["updated"])
    (listed,) = remote(deployment, ("library_list", {"tag": "oauth"}))
    assert listed["items"] == []  # the item's tag was never written there


@pytest.mark.parametrize(("url", "key", "code"), [
    ("ftp://127.0.0.1/mcp", "k", "invalid_argument"),
    ("http://example.org/mcp", "k", "invalid_argument"),  # plain http beyond this machine
    ("http://127.0.0.1:9/mcp", "k", "unavailable"),  # nothing listens there
    (None, "sk-scholar-wrong", "forbidden"),
])
def test_a_bad_url_an_unreachable_port_and_a_wrong_key_fail_typed_before_anything_is_written(
        deployment, new_machine, url, key, code):
    laptop = new_machine()

    done = laptop.run("", "library", "push", url or deployment.url, "--api-key", key, scholar=True)

    assert done.returncode == EXIT_CODES[code], done.stderr[-2000:]
    assert f"error [{code}]" in done.stderr and done.stdout == ""


def test_a_page_that_is_not_mcp_is_named_as_such(deployment, new_machine):
    done = new_machine().run("", "library", "pull", deployment.url.removesuffix("/mcp") + "/nothing-here",
                             "--api-key", deployment.key, scholar=True)

    assert done.returncode == EXIT_CODES["invalid_argument"], done.stderr[-2000:]
    assert "not an MCP endpoint" in done.stderr


