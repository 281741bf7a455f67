"""Step Functions on one machine: executions of the state machines (``STATEMACHINES``) run on a thread of this process.

The three calls ``scholar.runtime.executions`` makes (start, describe, stop) are answered here on the local
backend; each execution is a row of the local database (its input, status, output, the process that runs it), so
``describe_execution`` answers from any process on the folder, and an execution whose process ended is found at
the next start (``recover``): run again from its input (the steps are idempotent: content-addressed artifacts,
conditioned task writes) at most ``MAX_RUNS`` times, else ended FAILED, which fails its task
(scholar.runtime.reconcile), typed. Never RUNNING forever.
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from botocore.exceptions import ClientError

from scholar.core.config import get_settings
from scholar.core.errors import ScholarError
from scholar.runtime import invoke, statemachine
from scholar.store.local import owners
from scholar.store.local.database import Database

logger = logging.getLogger(__name__)

# The state machines' definitions, shipped inside the package: template.yaml's DefinitionUri and this runner read the
# same files.
STATEMACHINES = Path(__file__).resolve().parents[1] / "statemachines"
ARN_PREFIX = "arn:aws:states:local:000000000000:stateMachine:"
# An execution cut off this many times (its process ended each time) is ended instead of run again.
MAX_RUNS = 3
INTERRUPTED = "States.Interrupted"
_SUBSTITUTION = re.compile(r"\$\{(\w+)FunctionArn\}")


def machine_arn(name: str) -> str:
    """The ARN the settings carry for the state machine in ``STATEMACHINES/<name>.asl.json``."""
    return ARN_PREFIX + name


def _family(camel: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", camel).lower()  # PipelineFunctionArn → pipeline, StandardsSync → …


class LocalStepFunctions:
    """``start_execution``, ``describe_execution`` and ``stop_execution`` on the local database.

    Args:
        database: the local backend's database.
        folder: where the ``<name>.asl.json`` definitions are.
        owner: this process's token (scholar.store.local.owners).
        sleep: how Retry and Wait states wait (tests pass a recorder); by default a wait ``close`` cuts short.
    """

    def __init__(self, database: Database, folder: Path, owner: str,
                 sleep: Callable[[float], None] | None = None) -> None:
        self.database = database
        self.folder = folder
        self.owner = owner
        self._closing = threading.Event()
        self.sleep: Callable[[float], object] = sleep or self._closing.wait
        self._threads: list[threading.Thread] = []
        # Executions whose end could not be written (a full disk): kept here, so this process still answers it.
        self._ended: dict[str, tuple[str, str | None, str | None, str | None]] = {}

    def create_state_machine(self, *, name: str, definition: str, **_: Any) -> dict[str, Any]:
        """Keep a definition given through the API (the files need none); its ARN."""
        arn = machine_arn(name)
        with self.database.write() as db:
            db.execute("INSERT OR REPLACE INTO machines (arn, definition) VALUES (?, ?)", (arn, definition))
        return {"stateMachineArn": arn}

    def definition(self, machine: str) -> dict[str, Any]:
        """The definition of ``machine``: one created through the API, else its file with each ``${XFunctionArn}``
        set to function X's name, as template.yaml's DefinitionSubstitutions do."""
        with self.database.read() as db:
            created = db.execute("SELECT definition FROM machines WHERE arn = ?", (machine,)).fetchone()
        if created:
            return json.loads(created[0])
        path = self.folder / f"{machine.removeprefix(ARN_PREFIX)}.asl.json"
        names = {f"{m}FunctionArn": invoke.function_name(_family(m)) for m in _SUBSTITUTION.findall(path.read_text())}
        return statemachine.load_definition(path, names)

    def start_execution(self, *, stateMachineArn: str, name: str, input: str, **_: Any) -> dict[str, Any]:
        arn = stateMachineArn.replace(":stateMachine:", ":execution:") + f":{name}"
        with self.database.write() as db:
            known = db.execute("SELECT 1 FROM executions WHERE arn = ?", (arn,)).fetchone()
            if not known:  # the same name again is the same execution (Step Functions' idempotent start)
                db.execute("INSERT INTO executions (arn, machine, input, status, started_at, owner, attempts) "
                           "VALUES (?, ?, ?, 'RUNNING', ?, ?, 1)",
                           (arn, stateMachineArn, input, time.time(), self.owner))
        if not known:
            self._launch(arn, stateMachineArn, input)
        return {"executionArn": arn, "startDate": time.time()}

    def describe_execution(self, *, executionArn: str, **_: Any) -> dict[str, Any]:
        if executionArn in self._ended:
            status, output, error, cause = self._ended[executionArn]
            answer = {"executionArn": executionArn, "status": status}
            return answer | {k: v for k, v in (("output", output), ("error", error), ("cause", cause)) if v is not None}
        with self.database.read() as db:
            row = db.execute("SELECT status, input, output, error, cause FROM executions WHERE arn = ?",
                             (executionArn,)).fetchone()
        if row is None:
            raise ClientError({"Error": {"Code": "ExecutionDoesNotExist", "Message": executionArn}},
                              "DescribeExecution")
        answer = {"executionArn": executionArn, "status": row[0], "input": row[1]}
        answer |= {k: v for k, v in (("output", row[2]), ("error", row[3]), ("cause", row[4])) if v is not None}
        return answer

    def stop_execution(self, *, executionArn: str, cause: str = "", **_: Any) -> dict[str, Any]:
        with self.database.write() as db:
            changed = db.execute("UPDATE executions SET status = 'ABORTED', cause = ?, stopped_at = ? "
                                 "WHERE arn = ? AND status = 'RUNNING'", (cause, time.time(), executionArn)).rowcount
        if not changed:
            raise ClientError({"Error": {"Code": "ExecutionNotRunning", "Message": executionArn}}, "StopExecution")
        return {"stopDate": time.time()}

    def recover(self) -> tuple[list[str], list[str]]:
        """Take over the RUNNING executions of processes that ended: ``(resumed, ended)`` ARNs."""
        resumed: list[str] = []
        ended: list[str] = []
        with self.database.read() as db:
            rows = db.execute("SELECT arn, machine, input, owner, attempts FROM executions WHERE status = 'RUNNING'"
                              ).fetchall()
        for arn, machine, payload, owner, attempts in rows:
            if owner == self.owner or owners.alive(self.database.home, owner):
                continue
            with self.database.write() as db:  # claimed by one process only: the owner must still be the dead one
                if attempts >= MAX_RUNS:
                    claimed = db.execute(
                        "UPDATE executions SET status = 'FAILED', error = ?, cause = ?, stopped_at = ? "
                        "WHERE arn = ? AND owner IS ? AND status = 'RUNNING'",
                        (INTERRUPTED, f"the process running it ended {attempts} times", time.time(), arn, owner),
                    ).rowcount
                else:
                    claimed = db.execute("UPDATE executions SET owner = ?, attempts = attempts + 1 "
                                         "WHERE arn = ? AND owner IS ? AND status = 'RUNNING'",
                                         (self.owner, arn, owner)).rowcount
            if claimed and attempts >= MAX_RUNS:
                ended.append(arn)
            elif claimed:
                resumed.append(arn)
                self._launch(arn, machine, payload)
        return resumed, ended

    def _launch(self, arn: str, machine: str, payload: str) -> None:
        context = contextvars.copy_context()  # the execution runs on the backend that started it
        worker = threading.Thread(target=context.run, args=(self._run, arn, machine, payload), name="execution",
                                  daemon=True)
        self._threads.append(worker)
        worker.start()

    def _status(self, arn: str) -> str:
        if arn in self._ended:
            return self._ended[arn][0]
        with self.database.read() as db:
            row = db.execute("SELECT status FROM executions WHERE arn = ?", (arn,)).fetchone()
        return row[0] if row else "ABORTED"

    def _run(self, arn: str, machine: str, payload: str) -> None:
        prefix = get_settings().resources.function_prefix
        execution = statemachine.Execution(
            arn=arn, call=lambda function, event: invoke.dispatch_in_process(function.removeprefix(prefix), event),
            sleep=self.sleep, stopped=lambda: self._closing.is_set() or self._status(arn) != "RUNNING")
        outcome: tuple[str, str | None, str | None, str | None]
        try:
            output = statemachine.run(self.definition(machine), json.loads(payload), execution)
            outcome = ("SUCCEEDED", json.dumps(output), None, None)
        except statemachine.Stopped:
            return  # stopped (ABORTED is recorded) or this process is closing (left RUNNING: the next start resumes)
        except statemachine.ExecutionFailed as failure:
            outcome = ("FAILED", None, failure.error, failure.cause)
        except Exception as exc:  # the execution's thread: whatever ends it is recorded, not lost
            logger.exception("a local execution failed")
            outcome = ("FAILED", None, type(exc).__name__, "the execution failed in this process")
        try:
            with self.database.write() as db:
                db.execute("UPDATE executions SET status = ?, output = ?, error = ?, cause = ?, stopped_at = ? "
                           "WHERE arn = ? AND status = 'RUNNING'", (*outcome, time.time(), arn))
        except ScholarError as exc:  # e.g. a full disk: the execution still ends, in this process's memory
            logger.error("the end of %s could not be written (%s): kept in memory", arn, exc.message)
            self._ended[arn] = outcome

    def join(self, timeout_s: float | None = None) -> None:
        """Wait for the executions this process started (tests, and a command that must not exit before them)."""
        for worker in list(self._threads):
            worker.join(timeout_s)

    def close(self, timeout_s: float = 5.0) -> None:
        """Stop between states: every execution still running is left RUNNING for the next start to resume."""
        self._closing.set()
        self.join(timeout_s)
