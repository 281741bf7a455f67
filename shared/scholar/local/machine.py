"""Scholar on one machine (issue 32): every store in one data folder, every function and execution in this process.

``open_machine(home)`` opens the local backend over ``home``: the stores' tables in SQLite (WAL) and their
artifacts in files under it (``scholar.store.local``), the functions called directly in this process
(``scholar.entry.functions.run``: no Lambda event, no Powertools, nothing printed), the PDF pipeline and the other
state machines run from their own definitions on threads (``scholar.runtime.local_executions``). What it opens is a
``scholar.core.backend.Backend`` that its owner enters (``using``) around its work — a context variable, never the
process environment or a global — so two machines over two folders live side by side in one process, and closing
one leaves the other working. ``local_backend(home)`` is the same for the life of a block. On opening it takes over
what a process that ended left behind: its executions are run again (or ended after ``MAX_RUNS``), and its tasks
that no execution carries are failed, typed, never left "working". It imports neither boto3 nor moto.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from scholar.core import config
from scholar.core.backend import Backend, using
from scholar.core.config import default_home, get_settings
from scholar.core.errors import UnavailableError
from scholar.entry import functions
from scholar.runtime.local_executions import STATEMACHINES, LocalStepFunctions, machine_arn
from scholar.store import aws
from scholar.store.local import LocalBackend, owners
from scholar.store.local.backend import SIGNING_KEY_ID
from scholar.store.tasks import ACTIVE, TaskStore, TaskTransitionError

logger = logging.getLogger(__name__)

__all__ = ["STATEMACHINES", "LocalMachine", "local_backend", "open_machine"]

# Resources field → the variable that names it (its name upper-cased: SCHOLAR_CACHE_TABLE …).
_TABLE_ENVS = {field: getattr(config, f"{field.upper()}_ENV") for field in LocalBackend.resource_names()}
_MACHINE_ENVS = {config.PDF_STATE_MACHINE_ARN_ENV: "pdf_pipeline", config.RETRY_STATE_MACHINE_ARN_ENV: "retry_task",
                 config.PATENT_PDF_STATE_MACHINE_ARN_ENV: "patent_pdf"}


@dataclass(eq=False)
class LocalMachine:
    """An open local backend: its stores, its executions, the backend its owner enters, and what it took over."""

    home: Path
    backend: LocalBackend
    executions: LocalStepFunctions
    context: Backend  # what ``using`` makes current: the settings, clients and dispatch of this folder
    lock: IO[bytes] | None = None  # this process's hold on the folder (scholar.store.local.owners)
    resumed: list[str] = field(default_factory=list)  # executions run again here
    ended_executions: list[str] = field(default_factory=list)  # executions cut off MAX_RUNS times: FAILED
    ended_tasks: list[str] = field(default_factory=list)  # active tasks nothing carries any more: failed, typed
    closed: bool = False

    def close(self) -> None:
        """Finish the step under way, write what the stores still queue, let go of the folder (idempotent)."""
        if self.closed:
            return
        self.closed = True
        with using(self.context):
            self.executions.close()  # a step under way finishes; what is left runs again at the next start
            aws.reset_clients()  # what stores write behind their calls (usage rows) goes to this folder first
        self.context.close()  # this backend's own objects (open index files, memory)
        if self.lock is not None:
            owners.release(self.home, self.backend.owner, self.lock)
        self.backend.close()


def _environment(home: Path) -> dict[str, str]:
    """The settings of a machine over ``home``: the backend, the folder, its tables and state machines."""
    names = LocalBackend.resource_names()
    env = {config.BACKEND_ENV: "local", config.HOME_ENV: str(home)}
    env |= {_TABLE_ENVS[name]: value for name, value in names.items()}
    env |= {variable: machine_arn(name) for variable, name in _MACHINE_ENVS.items()}
    if not config.get_environ(config.OAUTH_SIGNING_KEY_ENV):
        # The key file under home/keys (scholar.store.local); one id per folder, so a public key read once per
        # process (scholar.store.signing) is never another folder's.
        env[config.OAUTH_SIGNING_KEY_ENV] = f"{SIGNING_KEY_ID}-{hashlib.sha256(str(home).encode()).hexdigest()[:12]}"
    return env


def _end_orphaned_tasks(machine: LocalMachine) -> list[str]:
    """Fail, typed, every active task last written by a process that ended and carried by no running execution."""
    with machine.backend.database.read() as db:
        rows = db.execute(
            "SELECT item, owner FROM items WHERE tbl = ? AND json_extract(item, '$.status.S') IN (?, ?)",
            (LocalBackend.resource_names()["task_table"], *ACTIVE)).fetchall()
    store = TaskStore()
    error = UnavailableError("the process running this task ended before it finished", retryable=True,
                             reason="interrupted", hint="Call the tool again to start it anew.").envelope_body()
    ended: list[str] = []
    for text, owner in rows:
        item = json.loads(text)
        if owner == machine.backend.owner or owners.alive(machine.home, owner):
            continue
        arn = item.get("execution_arn", {}).get("S")
        if arn and machine.executions.describe_execution(executionArn=arn)["status"] == "RUNNING":
            continue  # resumed above: its execution finishes it
        try:
            store.transition(item["task_id"]["S"], "failed", allowed_from=ACTIVE, error=error)
            ended.append(item["task_id"]["S"])
        except TaskTransitionError:
            pass  # finished meanwhile by another process: the stored state wins
    return ended


def open_machine(home: Path | None = None, *, statemachines: Path = STATEMACHINES) -> LocalMachine:
    """Open the local backend over ``home`` (default ``SCHOLAR_HOME``); its owner enters ``machine.context`` around its
    work and calls ``machine.close()`` at the end.

    Args:
        home: the data folder; created if absent.
        statemachines: the folder of the ``*.asl.json`` definitions the long jobs run from.

    Raises:
        UnavailableError: the folder is not writable, or its database is locked or corrupt (the message names the
            path and what to do).
    """
    folder = (home or get_settings().home or default_home()).expanduser().resolve()
    backend = LocalBackend(folder)
    try:
        lock = owners.hold(folder, backend.owner)
    except BaseException:
        backend.close()
        raise
    executions = LocalStepFunctions(backend.database, statemachines, backend.owner)
    backend.register("stepfunctions", executions)
    context = Backend(name="local", environ=_environment(folder), clients=backend.client, dispatch=functions.run,
                      metrics=False)
    machine = LocalMachine(folder, backend, executions, context, lock)
    try:
        with using(context):
            backend.dynamodb.purge_expired()
            machine.resumed, machine.ended_executions = executions.recover()
            machine.ended_tasks = _end_orphaned_tasks(machine)
    except BaseException:
        machine.close()
        raise
    if machine.resumed or machine.ended_executions or machine.ended_tasks:
        logger.info("resumed %d execution(s), ended %d execution(s) and %d task(s) a previous process left",
                    len(machine.resumed), len(machine.ended_executions), len(machine.ended_tasks))
    return machine


@contextmanager
def local_backend(home: Path | None = None, *, statemachines: Path = STATEMACHINES) -> Iterator[LocalMachine]:
    """Run the block on one machine's stores under ``home`` (``open_machine``), closed when the block ends."""
    machine = open_machine(home, statemachines=statemachines)
    try:
        with using(machine.context):
            yield machine
    finally:
        machine.close()
