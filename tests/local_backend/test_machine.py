"""scholar.local.machine.local_backend: one process on one machine's stores, and what it does when the folder fails.

The processes here are real subprocesses (``tests.local_backend.machine_script``): the data must outlive the
process that wrote it, a killed writer must lose nothing committed before, and no import of boto3 or moto may
happen on the way. Every upstream points at a closed loopback port, so nothing leaves the machine.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from scholar.core.errors import UNAVAILABLE, UnavailableError
from scholar.local.machine import local_backend
from scholar.store.blobs import BlobStore
from scholar.store.cache import Cache, forget_memory
from scholar.store.library.table import LibraryStore
from scholar.store.local import database as database_module
from scholar.store.local.database import DATABASE_FILE, Database
from scholar.store.local.signing_key import KEY_FILE, LocalKMS
from tests.fixtures.servers import REPO
from tests.local_backend import machine_script

# A loopback port nothing listens on: an upstream asked is refused at once, never reached over the network.
CLOSED = "http://127.0.0.1:9"


def run_script(home: Path, action: str) -> dict:
    env = {**os.environ, "PYTHONPATH": f"{REPO / 'shared'}{os.pathsep}{REPO}", "SCHOLAR_UPSTREAM_PROXY_BASE": CLOSED,
           "SCHOLAR_PACE_SCALE": "0", "SCHOLAR_RETRY_BUDGET_S": "0"}
    done = subprocess.run([sys.executable, "-m", "tests.local_backend.machine_script", str(home), action],
                          capture_output=True, text=True, env=env, cwd=REPO, timeout=120, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def start_holder(home: Path) -> subprocess.Popen:
    """A process on ``home`` inside an open write transaction (it says so on stdout, then waits to be killed)."""
    env = {**os.environ, "PYTHONPATH": f"{REPO / 'shared'}{os.pathsep}{REPO}"}
    holder = subprocess.Popen([sys.executable, "-m", "tests.local_backend.machine_script", str(home), "hold"],
                              stdout=subprocess.PIPE, text=True, env=env, cwd=REPO)
    assert holder.stdout is not None
    assert json.loads(holder.stdout.readline()) == {"holding": True}
    return holder


def kill(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    assert process.stdout is not None
    process.stdout.close()


def test_a_cached_get_paper_answers_through_the_gateway_in_a_later_process_without_boto3_or_moto(tmp_path):
    # Given one process stored a paper and quit
    home = tmp_path / "home"
    run_script(home, "seed")
    # When another process starts on the same folder and asks the gateway for it
    answer = run_script(home, "call")
    # Then the paper comes from the local store, and neither boto3 nor moto was ever imported
    assert answer["is_error"] is False
    assert answer["result"]["paperId"] == machine_script.PAPER["paperId"]
    assert answer["tools"] > 0
    assert (answer["boto3"], answer["moto"]) == (False, False)


def test_two_processes_updating_one_item_on_one_folder_lose_no_update(tmp_path):
    home = tmp_path / "home"
    env = {**os.environ, "PYTHONPATH": f"{REPO / 'shared'}{os.pathsep}{REPO}"}
    argv = [sys.executable, "-m", "tests.local_backend.machine_script", str(home), "count"]
    run_script(home, "seed")  # the folder exists before both start
    first, second = (subprocess.Popen(argv, stdout=subprocess.PIPE, env=env, cwd=REPO) for _ in range(2))
    for process in (first, second):
        process.communicate(timeout=120)
        assert process.returncode == 0
    with local_backend(home) as machine:
        item = machine.backend.dynamodb.get_item(TableName="cache", Key={"pk": {"S": "counter"}})["Item"]
    assert item["n"] == {"N": "100"}


def test_a_process_killed_mid_transaction_loses_nothing_stored_before(tmp_path):
    home = tmp_path / "home"
    pdf = run_script(home, "seed")["pdf"]
    # When a process is killed with SIGKILL inside a write that rewrote the cache and emptied the library
    kill(start_holder(home))
    # Then the next process finds every row and file as they were committed
    with local_backend(home):
        forget_memory()
        assert Cache().get("record", machine_script.PAPER["paperId"]) == machine_script.PAPER
        assert BlobStore().get(pdf) == b"%PDF-1.7 synthetic"
        kept = LibraryStore("local").get(machine_script.library_item().item_id)
        assert kept is not None and kept.tags == ["kept"] and kept.paper == machine_script.PAPER


def test_an_artifact_write_cut_off_midway_leaves_the_old_object_whole_and_no_partial_file(tmp_path):
    with local_backend(tmp_path / "home") as machine:
        key = BlobStore().put("md/paper.md", b"# the first conversion", "text/markdown")
        s3 = machine.backend.s3

        def half_then_fail(out) -> None:
            out.write(b"# a second conversion, cut off")
            raise OSError(28, "No space left on device")

        with pytest.raises(UnavailableError) as caught:
            s3._write(s3.path("bucket", key), half_then_fail)
        assert caught.value.reason == "store_disk_full"
        assert BlobStore().get(key) == b"# the first conversion"
        assert [p.name for p in s3.path("bucket", key).parent.iterdir()] == ["paper.md"]


def test_a_second_process_waiting_on_a_held_write_gets_a_typed_locked_error_naming_the_file(tmp_path):
    home = tmp_path / "home"
    run_script(home, "seed")
    holder = start_holder(home)
    try:
        with pytest.raises(UnavailableError) as caught:
            Database(home, busy_timeout_ms=50)  # opening writes the schema: it waits for the holder, then gives up
        assert (caught.value.code, caught.value.reason, caught.value.retryable) == (UNAVAILABLE, "store_locked", True)
        assert str(home / DATABASE_FILE) in caught.value.message
    finally:
        kill(holder)
    # And once the holder is gone, the folder is writable again and its data intact
    with local_backend(home):
        assert Cache(memory=False).get("record", machine_script.PAPER["paperId"]) == machine_script.PAPER


def test_a_corrupt_database_is_a_typed_error_naming_it_and_the_file_is_left_as_it_was(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    garbage = b"this is not a SQLite database " * 100
    (home / DATABASE_FILE).write_bytes(garbage)
    with pytest.raises(UnavailableError) as caught, local_backend(home):
        pass
    assert caught.value.reason == "store_corrupt" and caught.value.retryable is False
    assert str(home / DATABASE_FILE) in caught.value.message
    assert (home / DATABASE_FILE).read_bytes() == garbage  # kept for recovery, never overwritten


def test_a_folder_that_is_not_writable_is_a_typed_error_naming_it(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(stat.S_IRUSR | stat.S_IXUSR)
    # The suite may run as root, whom file modes do not stop: the folder's refusal is what os.access reports.
    monkeypatch.setattr(database_module.os, "access", lambda path, mode: Path(path) != home)
    with pytest.raises(UnavailableError) as caught, local_backend(home):
        pass
    assert caught.value.reason == "store_read_only" and str(home) in caught.value.message
    assert "SCHOLAR_HOME" in (caught.value.hint or "")


def test_a_full_disk_is_a_typed_error_and_what_was_stored_before_stays(tmp_path, caplog):
    home = tmp_path / "home"
    with local_backend(home) as machine:
        cache = Cache(memory=False)
        cache.put("record", "kept", {"title": "stored before the disk filled"})
        # Given the database may not grow any more (SQLite's own "database or disk is full")
        db = machine.backend.database.connection()
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count={pages}")
        big = {"text": os.urandom(64 * 1024).hex()}
        with pytest.raises(UnavailableError) as caught, machine.backend.database.write() as write:
            write.execute("INSERT INTO items (tbl, h, r, item) VALUES (?, ?, ?, ?)", ("t", "big", "", json.dumps(big)))
        assert caught.value.reason == "store_disk_full" and str(home / DATABASE_FILE) in caught.value.message
        # A cache write the full disk refuses is skipped, never failing the answer it would have kept (issue 40.3)
        cache.put("record", "big", big)
        assert "not cached" in caplog.text and str(home / DATABASE_FILE) in caplog.text
        assert cache.get("record", "kept") == {"title": "stored before the disk filled"}
        assert cache.get("record", "big") is None


def test_the_signing_key_is_made_readable_only_by_its_user_and_refused_once_others_can_read_it(tmp_path):
    kms = LocalKMS(tmp_path)
    signature = kms.sign(KeyId="k", Message=b"payload")["Signature"]
    assert len(signature) == 256  # RSA 2048, RS256
    assert stat.S_IMODE((tmp_path / KEY_FILE).stat().st_mode) == 0o600
    (tmp_path / KEY_FILE).chmod(0o644)
    with pytest.raises(UnavailableError) as caught:
        LocalKMS(tmp_path).get_public_key(KeyId="k")
    assert caught.value.reason == "signing_key_exposed" and "chmod 600" in (caught.value.hint or "")


def test_the_backend_is_chosen_once_and_left_on_exit(tmp_path):
    from scholar.core.config import get_settings  # read inside and outside the block

    with local_backend(tmp_path / "home") as machine:
        assert get_settings().backend == "local" and get_settings().home == machine.home
        assert get_settings().resources.cache_table
    assert get_settings().backend == "aws"



def test_usage_rows_queued_behind_a_call_are_written_to_this_folder_before_the_backend_closes(tmp_path, monkeypatch):
    """A tool's usage rows are written behind its answer, on a thread; the backend used to let go of its clients
    before waiting for them, so rows still queued at exit went to boto3 (imported on the local backend) and were
    lost. A slow write stands in for rows still queued when the block ends."""
    import time

    from scholar.store import usage  # inside: the module's writer thread is the subject

    monkeypatch.setenv("AWS_ENDPOINT_URL", CLOSED)  # were the rows sent to AWS, nothing leaves this machine
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    original = usage.UsageStore.put

    def slow_put(self, rows):
        time.sleep(0.3)
        return original(self, rows)

    monkeypatch.setattr(usage.UsageStore, "put", slow_put)
    refused: list[Exception] = []
    now = time.time()
    with local_backend(tmp_path / "home"):
        usage.UsageStore().put_behind([usage.UsageRow(source="crossref", at=now, token="t1", doc={"ok": True})],
                                      on_error=refused.append)
    assert refused == []
    monkeypatch.setattr(usage.UsageStore, "put", original)
    with local_backend(tmp_path / "home"):
        rows = usage.UsageStore().rows("crossref", now - 60, now + 60)
    assert [(row.source, row.token, row.doc) for row in rows] == [("crossref", "t1", {"ok": True})]

def test_an_access_token_signed_on_one_machine_verifies_with_the_key_files_public_half(tmp_path):
    from scholar.core import aio  # OAuth mode only
    from scholar.core.config import get_settings
    from scholar.gateway.auth.minting import mint_access_token
    from scholar.gateway.bearer.verify import load_key, verify_access_token

    with local_backend(tmp_path / "home") as machine:
        key_id = get_settings().oauth.signing_key
        token, claims = aio.run(mint_access_token(key_id=key_id, issuer="http://127.0.0.1:3000",
                                                  principal="oidc:" + "a" * 32, audience="http://127.0.0.1:3000/mcp",
                                                  client_id="c", scope="mcp", fid="f", ttl_s=600))
        load_key(key_id)
        assert verify_access_token(token, key_id=key_id, issuer="http://127.0.0.1:3000",
                                   audience="http://127.0.0.1:3000/mcp") == claims
        assert stat.S_IMODE((machine.home / "keys" / KEY_FILE).stat().st_mode) == 0o600
