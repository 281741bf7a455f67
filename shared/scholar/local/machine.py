"""Scholar on one machine (issue 32): every store in one data folder, every function and execution in this process.

``local_backend(home)`` makes this process run on the local backend until the block ends: the stores' tables in
SQLite (WAL) and their artifacts in files under ``home`` (``scholar.store.local``), family calls in-process
(``scholar.local.dispatch``), the PDF pipeline and the other state machines run from their own definitions on
threads (``scholar.runtime.local_executions``). The gateway (``scholar.gateway.mcp``) and ``scholar.runtime.invoke``
work unchanged inside it. On entry it takes over what a process that ended left behind: its executions are run
again (or ended after ``MAX_RUNS``), and its tasks that no execution carries are failed, typed, never left
"working". Like the embedded AWS stand-in (scholar.local.stack), it selects the backend through the environment
it exports (``SCHOLAR_BACKEND=local``, the table names), restored on exit; it imports neither boto3 nor moto.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from scholar.core import config
from scholar.core.config import default_home, get_settings
from scholar.core.errors import UnavailableError
from scholar.local import dispatch
from scholar.runtime.local_executions import LocalStepFunctions, machine_arn
from scholar.store import aws
from scholar.store.local import LocalBackend, owners
from scholar.store.local.backend import SIGNING_KEY_ID
from scholar.store.tasks import ACTIVE, TaskStore, TaskTransitionError

logger = logging.getLogger(__name__)

__all__ = ["STATEMACHINES", "LocalMachine", "local_backend"]

# The state machines' definitions: shipped inside the package (scholar/statemachines/, when a build copies them
# there) or, in a checkout, the repository's statemachines/ folder (shared/scholar/local → the root).
_SHIPPED = Path(__file__).resolve().parents[1] / "statemachines"
STATEMACHINES = _SHIPPED if _SHIPPED.is_dir() else Path(__file__).resolve().parents[3] / "statemachines"
# Resources field → the variable that names it (its name upper-cased: SCHOLAR_CACHE_TABLE …).
# Powertools' metrics print CloudWatch EMF lines on stdout at each handler's end: on one machine there is no
# CloudWatch to read them, and stdout may be an MCP stdio stream. Off unless the user set the variable.
METRICS_DISABLED_ENV = "POWERTOOLS_METRICS_DISABLED"
_TABLE_ENVS = {field: getattr(config, f"{field.upper()}_ENV") for field in LocalBackend.resource_names()}
_MACHINE_ENVS = {config.PDF_STATE_MACHINE_ARN_ENV: "pdf_pipeline", config.RETRY_STATE_MACHINE_ARN_ENV: "retry_task",
                 config.PATENT_PDF_STATE_MACHINE_ARN_ENV: "patent_pdf"}


@dataclass
class LocalMachine:
    """What ``local_backend`` yields: the open backend, its executions, and what it took over at the start."""

    home: Path
    backend: LocalBackend
    executions: LocalStepFunctions
    resumed: list[str] = field(default_factory=list)  # executions run again here
    ended_executions: list[str] = field(default_factory=list)  # executions cut off MAX_RUNS times: FAILED
    ended_tasks: list[str] = field(default_factory=list)  # active tasks nothing carries any more: failed, typed


def _environment(home: Path) -> dict[str, str]:
    names = LocalBackend.resource_names()
    env = {config.BACKEND_ENV: "local", config.HOME_ENV: str(home), config.LOCAL_DISPATCH_ENV: "1"}
    env |= {_TABLE_ENVS[name]: value for name, value in names.items()}
    env |= {variable: machine_arn(name) for variable, name in _MACHINE_ENVS.items()}
    if not config.get_environ(METRICS_DISABLED_ENV):
        env[METRICS_DISABLED_ENV] = "true"
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


@contextmanager
def local_backend(home: Path | None = None, *, statemachines: Path = STATEMACHINES) -> Iterator[LocalMachine]:
    """Run this process on one machine's stores under ``home`` (default ``SCHOLAR_HOME``) until the block ends.

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
    environment = _environment(folder)
    saved = {name: config.get_environ(name) for name in environment}
    config.set_environment(environment)
    aws.reset_clients()
    aws.use_local_clients(backend.client)
    dispatch.install()
    machine = LocalMachine(folder, backend, executions)
    try:
        backend.dynamodb.purge_expired()
        machine.resumed, machine.ended_executions = executions.recover()
        machine.ended_tasks = _end_orphaned_tasks(machine)
        if machine.resumed or machine.ended_executions or machine.ended_tasks:
            logger.info("resumed %d execution(s), ended %d execution(s) and %d task(s) a previous process left",
                        len(machine.resumed), len(machine.ended_executions), len(machine.ended_tasks))
        yield machine
    finally:
        executions.close()  # a step under way finishes; what is left runs again at the next start
        aws.reset_clients()  # what stores write behind their calls (usage rows) goes to this folder, then they let go
        aws.use_local_clients(None)
        config.set_environment(saved)
        aws.reset_clients()
        owners.release(folder, backend.owner, lock)
        backend.close()
