"""Run as ``python -m tests.local_backend.machine_script HOME ACTION``: one process on the local backend.

Actions (each prints one JSON line on stdout):
    seed     store a paper record and its DOI alias in the cache, a library item and a kept PDF, then exit.
    call     answer get_paper for the seeded DOI through the MCP gateway (the SDK's in-memory client) and report
             whether boto3 or moto were ever imported.
    hold     begin a library write transaction, say so, and wait to be killed (SIGKILL mid-transaction).
    count    add 50 to a shared counter in the cache table, one update at a time.
    job      start a long execution and two running tasks (one carried by it, one inline), say so, and wait to be
             killed (a job cut off mid-run).
The payloads are synthetic (the shape of scholar.core.records.Paper), since nothing here reaches an upstream.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

DOI = "10.1000/synthetic.local.1"
PAPER = {"paperId": "synthetic0000000000000000000000000000001", "title": "A synthetic paper kept on one machine",
         "year": 2024, "externalIds": {"DOI": DOI}, "sources": ["s2"]}


def seed(home: Path) -> dict:
    from scholar.local.machine import local_backend
    from scholar.store.blobs import BlobStore
    from scholar.store.cache import Cache
    from scholar.store.library.table import LibraryStore

    with local_backend(home):
        Cache().put("record", PAPER["paperId"], PAPER)
        Cache().put("alias", f"doi:{DOI}", PAPER["paperId"])
        key = BlobStore().put("pdfs/synthetic.pdf", b"%PDF-1.7 synthetic", "application/pdf")
        LibraryStore("local").put(library_item())
    return {"pdf": key}


def library_item():
    from scholar.store.library.models import LibraryItem, item_id_for

    return LibraryItem(item_id=item_id_for(f"doi:{DOI}"), ids=[f"doi:{DOI}"], paper=PAPER, tags=["kept"],
                       added_at="2026-12-01T00:00:00Z", updated_at="2026-12-01T00:00:00Z")


def call(home: Path) -> dict:
    import anyio
    from mcp import Client

    from scholar.gateway.mcp.server import build_server
    from scholar.local.machine import local_backend

    async def get_paper() -> dict:
        async with Client(build_server()) as client:
            listed = await client.list_tools()
            answer = await client.call_tool("get_paper", {"identifier": DOI})
            return {"tools": len(listed.tools), "is_error": answer.is_error, "result": answer.structured_content}

    with local_backend(home):
        out = anyio.run(get_paper)
    return out | {"boto3": "boto3" in sys.modules, "moto": "moto" in sys.modules}


def hold(home: Path) -> dict:
    from scholar.local.machine import local_backend

    with local_backend(home) as machine:
        db = machine.backend.database.connection()
        db.execute("BEGIN IMMEDIATE")
        db.execute("UPDATE items SET item = ? WHERE tbl = 'cache'", ('{"broken": true}',))
        db.execute("DELETE FROM items WHERE tbl = 'library'")
        print(json.dumps({"holding": True}), flush=True)
        time.sleep(600)  # killed long before: the transaction never commits
    return {}


# A long job: a Wait far longer than the test, so the process is always killed inside it.
LONG_JOB = {"StartAt": "Work", "States": {"Work": {"Type": "Wait", "Seconds": 600, "Next": "Done"},
                                          "Done": {"Type": "Succeed"}}}


def job(home: Path) -> dict:
    from scholar.local.machine import local_backend
    from scholar.store.tasks import TaskItem, TaskStore

    with local_backend(home) as machine:
        sfn = machine.executions
        arn = sfn.create_state_machine(name="long_job", definition=json.dumps(LONG_JOB))["stateMachineArn"]
        execution = sfn.start_execution(stateMachineArn=arn, name="run-1", input="{}")["executionArn"]
        expires = int(time.time()) + 3600
        TaskStore().create(TaskItem(task_id="queued-job", principal="local", tool="fetch_and_convert",
                                    status="running", execution_arn=execution, expires_at=expires))
        TaskStore().create(TaskItem(task_id="inline-job", principal="local", tool="search", status="running",
                                    expires_at=expires))
        print(json.dumps({"holding": True, "execution": execution}), flush=True)
        time.sleep(600)  # killed long before
    return {}


def count(home: Path) -> dict:
    """Add 50 to one shared counter, one conditioned read-modify-write at a time (the pace item's kind of race)."""
    from scholar.local.machine import local_backend
    from scholar.store import aws

    with local_backend(home):
        client = aws.client("dynamodb")
        for _ in range(50):
            client.update_item(TableName="cache", Key={"pk": {"S": "counter"}}, UpdateExpression="ADD n :one",
                               ExpressionAttributeValues={":one": {"N": "1"}})
    return {"added": 50}


ACTIONS = {"seed": seed, "call": call, "hold": hold, "job": job, "count": count}

if __name__ == "__main__":
    print(json.dumps(ACTIONS[sys.argv[2]](Path(sys.argv[1]))), flush=True)
