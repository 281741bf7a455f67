"""What ``scholar mcp`` does before its first tools/list answer (issue 32: the start is held to ~1x ``import mcp``).

A real session through the SDK's stdio client (initialize, tools/list, then stdin closed), the server's modules
recorded as it exits. The first start in a data folder builds the listing from the catalogue and keeps it; the next
lists from the kept answer, importing no family, service or source, nor the AWS SDK. Neither opens the store: the
local backend waits for a request that needs it.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from scholar.families import FAMILIES

START_TIMEOUT_S = 120
# Runs `scholar mcp` in this process and writes its modules to MODULES_FILE when it exits.
RECORDER = (
    "import atexit, json, os, sys\n"
    "atexit.register(lambda: open(os.environ['MODULES_FILE'], 'w').write(json.dumps(sorted(sys.modules))))\n"
    "from scholar.local.cli import main\n"
    "sys.exit(main(['mcp']))\n"
)
NEVER = ("boto3", "moto", "lxml", "scholar.local.machine", "scholar.store.local", "scholar.runtime.local_executions")
# No family (its spec or anything else of it); the families' own package and profiles.py, which name them and read
# their specs only when asked, may load.
NOT_FROM_A_KEPT_LISTING = ("botocore", "scholar.services", "scholar.sources",
                           *(f"scholar.families.{family}" for family in FAMILIES))


def _session(home: Path, modules: Path) -> list[dict]:
    env = {name: value for name, value in os.environ.items() if not name.startswith("SCHOLAR_")}
    env.pop("PYTHONPATH", None)
    env.update(SCHOLAR_HOME=str(home),
               SCHOLAR_BACKEND="local", MODULES_FILE=str(modules))

    async def listing() -> list[dict]:
        with anyio.fail_after(START_TIMEOUT_S):
            async with Client(StdioServerParameters(command=sys.executable, args=["-c", RECORDER], env=env)) as client:
                return [tool.model_dump() for tool in (await client.list_tools()).tools]

    return anyio.run(listing)


def _loaded(modules: Path, *prefixes: str) -> list[str]:
    return [name for name in json.loads(modules.read_text()) if any(name == p or name.startswith(f"{p}.")
                                                                     for p in prefixes)]


def test_a_start_lists_from_the_kept_answer_without_the_catalogue_and_neither_start_opens_the_store(tmp_path):
    home = tmp_path / "home"
    first = _session(home, tmp_path / "first.json")
    again = _session(home, tmp_path / "again.json")

    assert again == first and {tool["name"] for tool in first} >= {"search", "get_paper", "get_task_result"}
    assert _loaded(tmp_path / "again.json", *NEVER, *NOT_FROM_A_KEPT_LISTING) == []
    assert _loaded(tmp_path / "first.json", *NEVER) == []  # the first builds the listing: specs, never handlers
    assert [name for name in _loaded(tmp_path / "first.json", "scholar.families") if name.endswith(".handlers")] == []
    assert not (home / "scholar.sqlite3").exists()
    assert len(list((home / "cache" / "tools-list").glob("*.json"))) == 1
