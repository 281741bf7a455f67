"""A queued answer is polled through get_task_result to its end, with a progress line on stderr; a failed task
raises its own error. The family runner is replaced by a scripted one: the polling loop is what is tested here
(the queueing itself is the tasks suites')."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest

from scholar.core.errors import RateLimitedError
from scholar.local import calls
from scholar.local.cli.output import ProgressLine
from scholar.runtime.invocation import Outcome

QUEUED = {"queued": True, "task_id": "t-1", "tool": "fetch_and_convert", "poll_after_s": 5}
DONE = {"markdown": "# Title", "pages": 3}


def scripted(answers: list[dict]) -> Iterator[Outcome]:
    yield Outcome(ok=True, result=QUEUED)
    for answer in answers:
        yield Outcome(ok=True, result={"task_id": "t-1", "tool": "fetch_and_convert", **answer})


class ScriptedRunner:
    """Stands in for ``run_tool``: answers the queued call, then each poll from its script; records the calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict, str]] = []
        self._outcomes: Iterator[Outcome] = iter(())

    def script(self, answers: list[dict]) -> None:
        self._outcomes = scripted(answers)

    def __call__(self, spec, arguments, principal) -> Outcome:
        self.calls.append((spec.name, arguments, principal))
        return next(self._outcomes)


@pytest.fixture
def runner(monkeypatch) -> ScriptedRunner:
    fake = ScriptedRunner()
    monkeypatch.setattr(calls, "run_tool", fake)
    return fake


def test_a_queued_answer_is_polled_with_the_server_side_wait_until_it_completes(runner):
    runner.script([{"status": "running", "elapsed_s": 3, "hint": "converting"},
               {"status": "completed", "elapsed_s": 9, "result": DONE}])
    err = io.StringIO()

    result = calls.call("fetch_and_convert", {"identifier": "10.1/x"}, progress=ProgressLine(err))

    polls = runner.calls[1:]
    assert result == DONE
    assert [p[0] for p in polls] == ["get_task_result", "get_task_result"]
    assert polls[0][1] == {"task_id": "t-1", "wait_s": calls.POLL_WAIT_S} and polls[0][2] == calls.LOCAL_PRINCIPAL
    assert err.getvalue().splitlines() == ["[fetch_and_convert] running 3 s · converting",
                                           "[fetch_and_convert] completed 9 s"]


def test_a_failed_task_raises_the_error_of_its_code_and_no_wait_returns_the_queued_answer(runner):
    runner.script([{"status": "failed", "elapsed_s": 2, "error": {"code": "rate_limited", "message": "slow down",
                                                              "retryable": True}}])

    with pytest.raises(RateLimitedError):
        calls.call("fetch_and_convert", {"identifier": "10.1/x"})

    runner.script([])
    assert calls.call("fetch_and_convert", {"identifier": "10.1/x"}, wait=False) == QUEUED
