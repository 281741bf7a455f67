"""Long jobs on one machine: statemachines/*.asl.json run in-process (scholar.runtime.statemachine), and restarts.

The interpreter is checked against the definition files themselves (order, Retry intervals and attempts, Catch),
so the local run and the deployed state machine cannot drift; then the real PDF pipeline runs on the local backend
against the fake upstream; then a process killed mid-job is taken over at the next start.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scholar.core.errors import UNAVAILABLE, UPSTREAM_ERROR, UpstreamError
from scholar.local.machine import STATEMACHINES, local_backend
from scholar.runtime import statemachine
from scholar.runtime.invocation import Invocation
from scholar.runtime.invoke import dispatch_in_process, invoke_family
from scholar.runtime.local_executions import MAX_RUNS
from scholar.runtime.outcome import StepError, step_failure
from scholar.store.tasks import TaskStore
from scholar.web import fetch
from tests.fakes.upstream import FakeUpstream
from tests.fakes.web import web_access
from tests.fixtures.servers import REPO, fake_fixture, fake_upstream_fixture
from tests.fixtures_dir import fixtures_dir
from tests.local_backend.test_machine import kill
from tests.pdf.test_pipeline_machine import wait_task

PDF_PIPELINE = STATEMACHINES / "pdf_pipeline.asl.json"
FUNCTION = "scholar-pipeline"


def pipeline_definition() -> dict[str, Any]:
    return statemachine.load_definition(PDF_PIPELINE, {"PipelineFunctionArn": FUNCTION})


class Steps:
    """A stand-in for the pipeline function: records each action, answers as the real steps do, fails on demand."""

    def __init__(self, failing: str | None = None, error: type[Exception] = StepError) -> None:
        self.actions: list[str] = []
        self.failing = failing
        self.error = error

    def __call__(self, function: str, payload: dict[str, Any]) -> Any:
        assert function == FUNCTION
        self.actions.append(payload["action"])
        if payload["action"] == self.failing:
            raise self.error(UpstreamError("the step failed", source="s2", retryable=True))
        return {"resolve": {"error": None, "candidates": []}, "download": {"pdf": "pdfs/x.pdf"},
                "convert": {"markdown": "md/x.md"}, "finish": {"recorded": True}}[payload["action"]]


def run_pipeline(steps: Steps, job: dict[str, Any]) -> tuple[Any, list[float]]:
    slept: list[float] = []
    execution = statemachine.Execution(arn="arn:local:execution:pdf:1", call=steps, sleep=slept.append)
    output = statemachine.run(pipeline_definition(), {"task_id": "t", "principal": "p", "job": job}, execution)
    return output, slept


def test_the_pipeline_runs_resolve_download_convert_finish_in_the_definitions_order():
    steps = Steps()
    output, slept = run_pipeline(steps, {"kind": "fetch", "convert": True})
    assert steps.actions == ["resolve", "download", "convert", "finish"]
    assert output["converted"] == {"markdown": "md/x.md"} and slept == []


def test_a_convert_job_starts_at_convert_as_the_definitions_choice_says():
    steps = Steps()
    run_pipeline(steps, {"kind": "convert", "convert": True})
    assert steps.actions == ["convert", "finish"]


def test_a_failing_step_is_retried_with_the_definitions_intervals_then_caught_into_finish():
    # The StepError retrier of Download, read from the file: its interval, backoff and attempts are what runs.
    retrier = next(r for r in json.loads(PDF_PIPELINE.read_text())["States"]["Download"]["Retry"]
                   if "StepError" in r["ErrorEquals"])
    expected = [retrier["IntervalSeconds"] * retrier["BackoffRate"] ** n for n in range(retrier["MaxAttempts"])]
    steps = Steps(failing="download")
    output, slept = run_pipeline(steps, {"kind": "fetch", "convert": True})
    assert steps.actions == ["resolve"] + ["download"] * (1 + retrier["MaxAttempts"]) + ["finish"]
    assert slept == expected
    assert output["failure"]["Error"] == "StepError"
    # and finish reads the step's own typed error back from the Cause, as it does from Step Functions'
    assert step_failure(output["failure"], machine="PDF pipeline")["code"] == UPSTREAM_ERROR


def test_a_lambda_service_error_is_retried_with_full_jitter_within_the_definitions_bounds():
    class ServiceException(Exception):
        pass

    ServiceException.__name__ = "Lambda.ServiceException"
    retrier = json.loads(PDF_PIPELINE.read_text())["States"]["Resolve"]["Retry"][0]
    steps = Steps(failing="resolve", error=ServiceException)
    _, slept = run_pipeline(steps, {"kind": "fetch", "convert": True})
    assert len(slept) == retrier["MaxAttempts"]
    assert all(0 <= wait <= retrier["IntervalSeconds"] * retrier["BackoffRate"] ** n for n, wait in enumerate(slept))


def test_a_finish_that_cannot_record_ends_the_execution_failed_as_the_definition_says():
    steps = Steps(failing="finish")
    with pytest.raises(statemachine.ExecutionFailed) as caught:
        run_pipeline(steps, {"kind": "fetch", "convert": True})
    assert caught.value.error == json.loads(PDF_PIPELINE.read_text())["States"]["NotRecorded"]["Error"]


def test_every_definition_uses_only_what_the_interpreter_reads():
    for path in sorted(STATEMACHINES.glob("*.asl.json")):
        for name, state in json.loads(path.read_text())["States"].items():
            assert state["Type"] in ("Pass", "Choice", "Task", "Wait", "Fail", "Succeed"), (path.name, name)
            for key in state.get("Parameters", {}):
                value = state["Parameters"][key]
                if key.endswith(".$") and value.startswith("States."):
                    assert value.startswith("States.MathAdd("), (path.name, name, value)


# -- the real pipeline on the local backend --------------------------------------------------------------------

fake = fake_upstream_fixture(scope="module", name="fake")
routes = fake_fixture(upstream="fake", name="routes")
PNAS_DOI = "10.1073/pnas.1414271111"
PNAS_PDF_PATH = "/www.pnas.org/content/pnas/111/45/E4832.full.pdf"
PMC_PATH = "/europepmc.org/articles/PMC4234579"
PDF_NAME = "arxiv_2305.03393v1_page9_only.pdf"


@pytest.fixture
def machine(fake: FakeUpstream, env: Any, tmp_path: Path) -> Any:
    env.set(SCHOLAR_UPSTREAM_PROXY_BASE=fake.base_url, SCHOLAR_RETRY_BUDGET_S="0",
            SCHOLAR_TEST_ALLOW_HOSTS=fake.base_url.removeprefix("http://"))
    fetch.set_web_access(web_access(fake))
    try:
        with local_backend(tmp_path / "home") as opened:
            yield opened
    finally:
        fetch.set_web_access(None)


def test_fetch_and_convert_runs_the_pipeline_in_process_and_keeps_the_pdf_as_a_file(machine, routes: FakeUpstream):
    routes.add_route("GET", "web", PNAS_PDF_PATH, body=(fixtures_dir() / "pdfs" / PDF_NAME).read_bytes())
    routes.add_route("GET", "web", PMC_PATH, body=(fixtures_dir() / "pdfs" / PDF_NAME).read_bytes())
    queued = invoke_family("pdf", Invocation(tool="fetch_and_convert", principal="local", request_id="r",
                                             arguments={"identifier": PNAS_DOI, "max_chars": 2000}))
    assert queued.ok and queued.result and queued.result["queued"] is True, queued.error
    task = wait_task(queued.result["task_id"], "local")
    assert task.status == "completed", task.error
    pdf = machine.home / "artifacts" / "bucket" / task.result["pdf_path"]
    assert pdf.read_bytes() == (fixtures_dir() / "pdfs" / PDF_NAME).read_bytes()
    described = machine.executions.describe_execution(executionArn=task.execution_arn)
    assert described["status"] == "SUCCEEDED"


# -- restarts ----------------------------------------------------------------------------------------------------

def start_job(home: Path) -> str:
    """A process that started a long execution and two running tasks, killed with SIGKILL; the execution's ARN."""
    import os  # only the subprocess's environment needs it
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": f"{REPO / 'shared'}{os.pathsep}{REPO}"}
    process = subprocess.Popen([sys.executable, "-m", "tests.local_backend.machine_script", str(home), "job"],
                               stdout=subprocess.PIPE, text=True, env=env, cwd=REPO)
    assert process.stdout is not None
    said = json.loads(process.stdout.readline())
    kill(process)
    return said["execution"]


def test_a_job_cut_off_by_a_killed_process_is_resumed_and_an_inline_task_ended_typed_at_the_next_start(tmp_path):
    home = tmp_path / "home"
    execution = start_job(home)
    with local_backend(home) as machine:
        # Then the execution runs again here, and the task it carries is left to it
        assert machine.resumed == [execution]
        assert TaskStore().get("queued-job", "local").status == "running"
        # And the task no execution carries is failed, typed, and says what to do
        inline = TaskStore().get("inline-job", "local")
        assert inline.status == "failed"
        assert (inline.error["code"], inline.error["retryable"]) == (UNAVAILABLE, True)
        assert machine.ended_tasks == ["inline-job"]


def test_a_job_cut_off_too_often_is_ended_failed_and_its_task_with_it(tmp_path):
    home = tmp_path / "home"
    execution = start_job(home)
    from scholar.store.local.database import Database  # the raw rows, as a third process sees them

    database = Database(home)
    with database.write() as db:
        db.execute("UPDATE executions SET attempts = ? WHERE arn = ?", (MAX_RUNS, execution))
    database.close()
    with local_backend(home) as machine:
        assert machine.resumed == []
        assert machine.executions.describe_execution(executionArn=execution)["status"] == "FAILED"
        assert machine.ended_executions == [execution]
        assert sorted(machine.ended_tasks) == ["inline-job", "queued-job"]
        assert TaskStore().get("queued-job", "local").status == "failed"


def test_a_second_process_does_not_take_over_the_jobs_of_a_live_one(tmp_path):
    home = tmp_path / "home"
    with local_backend(home) as first:
        sfn = first.executions
        definition = json.dumps({"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 600, "End": True}}})
        arn = sfn.create_state_machine(name="waits", definition=definition)["stateMachineArn"]
        execution = sfn.start_execution(stateMachineArn=arn, name="live", input="{}")["executionArn"]
        from scholar.runtime.local_executions import LocalStepFunctions
        from scholar.store.local.database import Database

        other = Database(home)
        try:
            assert LocalStepFunctions(other, STATEMACHINES, owner="another").recover() == ([], [])
        finally:
            other.close()
        assert sfn.describe_execution(executionArn=execution)["status"] == "RUNNING"


# -- the standards sync ------------------------------------------------------------------------------------------

def test_the_standards_sync_runs_in_process_and_publishes_its_catalogue_as_a_file(upstream, env, tmp_path):
    from scholar.families.standards import retry, service  # the standards family's own state
    from scholar.families.standards.storage import IndexStore
    from tests.standards.test_sync import SCHEDULED_EVENT
    from tests.standards.upstream_routes import mount

    env.set(SCHOLAR_RETRY_BUDGET_S="0")  # a recorded 5xx is final here, as in tests/standards
    mount(upstream, fixtures_dir() / "upstream")
    retry.reset()
    service.set_holder(service.CatalogueHolder(directory=tmp_path / "catalogue"))
    try:
        with local_backend(tmp_path / "home") as machine:
            # When the sync function's handler runs in this process, as the local backend runs every function
            summary = dispatch_in_process("standards_sync", SCHEDULED_EVENT)
            # Then it publishes a catalogue into the local store, which the standards family reads back
            assert summary["published"] is True
            pointer = IndexStore().read_pointer()
            assert pointer is not None and pointer.version == summary["version"]
            assert list((machine.home / "artifacts" / "bucket" / "standards").glob("*.sqlite"))
            catalogue = service.holder().get()
            assert catalogue is not None
            assert catalogue.resolve("ISO 27001").record.identifier == "ISO/IEC 27001:2022"
    finally:
        retry.reset()
        service.set_holder(None)
