"""Backends owned by whoever opens them: two ``Scholar`` homes in one process, used from threads, each seeing only
its own data, and closing one leaves the other working; a local call runs the function's code directly, prints
nothing and never loads the Lambda machinery (Powertools)."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from scholar.core import backend
from scholar.core.config import get_settings
from scholar.core.errors import UnavailableError
from tests.local.conftest import Machine

DOI = "10.1073/pnas.1414271111"  # recorded: semantic_scholar, crossref
TIMEOUT_S = 240


def _tags(api: object) -> set[str]:
    items = api.library_list()["items"]  # type: ignore[attr-defined]
    return {tag for item in items for tag in item.get("tags", [])}


def test_two_homes_in_one_process_each_see_only_their_own_library_and_outlive_each_other(machine: Machine,
                                                                                         tmp_path: Path):
    from scholar import Scholar

    first, second = Scholar(home=tmp_path / "first"), Scholar(home=tmp_path / "second")
    failures: list[BaseException] = []

    def add(api: Scholar, tag: str) -> None:
        try:
            api.library_add(identifier=DOI, tags=[tag])
        except BaseException as exc:  # noqa: BLE001  # reported to the test's thread below
            failures.append(exc)

    workers = [threading.Thread(target=add, args=(first, "first-only")),
               threading.Thread(target=add, args=(second, "second-only"))]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(TIMEOUT_S)
    try:
        assert failures == []
        assert _tags(first) == {"first-only"}
        assert _tags(second) == {"second-only"}
        assert all((tmp_path / name / "scholar.sqlite3").is_file() for name in ("first", "second"))

        second.close()
        assert _tags(first) == {"first-only"}  # the other one still works
        assert _tags(second) == {"second-only"}  # and a closed one opens again at its next call
    finally:
        first.close()
        second.close()
    assert backend.current() is backend.ENVIRONMENT  # nothing was left entered in the caller's context


def test_the_settings_of_an_opened_backend_never_leak_into_the_process(machine: Machine, tmp_path: Path):
    from scholar.local.machine import open_machine

    opened = open_machine(tmp_path / "home")
    try:
        with backend.using(opened.context):
            inside = get_settings()
        outside = get_settings()
    finally:
        opened.close()

    assert inside.home == (tmp_path / "home").resolve() and inside.resources.library_table
    assert outside.home == machine.home and outside.resources.library_table is None
    from scholar.store import aws

    with pytest.raises(UnavailableError):  # SCHOLAR_BACKEND=local but this context has no local backend open
        aws.client("dynamodb")


CHILD = """
import sys
from scholar import Scholar
with Scholar() as api:
    api.get_paper(identifier=%r)
    api.library_add(identifier=%r)
    assert api.library_list()["items"]
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("aws_lambda_powertools", "boto3", "moto", "functions"))
print("loaded:", loaded, file=sys.stderr)
"""


def test_a_local_call_prints_nothing_and_never_loads_lambda_machinery(machine: Machine):
    done = subprocess.run([sys.executable, "-c", CHILD % (DOI, DOI)], env=machine.child_env(), capture_output=True,
                          text=True, timeout=TIMEOUT_S, check=False)

    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == ""
    assert done.stderr.strip() == "loaded: []"


def test_what_one_backend_holds_in_memory_never_answers_for_another(tmp_path: Path):
    from scholar.local.machine import open_machine
    from scholar.store.cache import Cache

    first, second = open_machine(tmp_path / "first"), open_machine(tmp_path / "second")
    try:
        with backend.using(first.context):
            Cache().put("record", "the-key", {"title": "first's"})  # kept in memory too: a warm repeat is free
            assert Cache().get("record", "the-key") == {"title": "first's"}
        with backend.using(second.context):  # the same table name and key, another folder
            assert Cache().get("record", "the-key") is None
            Cache().put("record", "the-key", {"title": "second's"})
        with backend.using(first.context):
            assert Cache().get("record", "the-key") == {"title": "first's"}
    finally:
        first.close()
        second.close()
