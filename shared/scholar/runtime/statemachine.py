"""An Amazon States Language interpreter, for running statemachines/*.asl.json in this process (local backend).

The state machine's own definition is what runs: the same states in the same order, each Task calling the same
family action the deployed state machine invokes, with the Retry (interval, attempts, backoff) and Catch it
declares, so the local run and the deployed one cannot drift. Only what our definitions use is read (JSONPath:
Pass, Choice, Task, Wait, Fail, Succeed; ``Parameters``, ``ResultSelector``, ``ResultPath``; ``States.MathAdd``);
a definition that uses more fails loudly (``StateMachineError``), never half runs. A Task's Resource is a function
name or a ``${XFunctionArn}`` substitution, resolved by the caller's ``call(function_name, payload)``.
"""

from __future__ import annotations

import copy
import json
import random
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LAMBDA_INVOKE = "arn:aws:states:::lambda:invoke"
_MATH_ADD = re.compile(r"^States\.MathAdd\((.+),(.+)\)$")
_COMPARISONS: dict[str, Callable[[Any, Any], bool]] = {
    "StringEquals": lambda a, b: isinstance(a, str) and a == b,
    "BooleanEquals": lambda a, b: isinstance(a, bool) and a == b,
    "NumericEquals": lambda a, b: _number(a) and a == b,
    "NumericLessThan": lambda a, b: _number(a) and a < b,
    "NumericGreaterThan": lambda a, b: _number(a) and a > b,
    "NumericLessThanEquals": lambda a, b: _number(a) and a <= b,
    "NumericGreaterThanEquals": lambda a, b: _number(a) and a >= b,
}
_MISSING = object()


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


class StateMachineError(Exception):
    """The definition uses what this interpreter does not read, or a path it needs is missing."""


class ExecutionFailed(Exception):  # Step Functions' own name for an execution that ended in failure
    """The execution ended in failure: ``error`` and ``cause`` as Step Functions reports them."""

    def __init__(self, error: str, cause: str) -> None:
        super().__init__(f"{error}: {cause}")
        self.error = error
        self.cause = cause


class Stopped(Exception):  # Step Functions' ABORTED
    """``stop_execution`` asked this execution to end."""


@dataclass
class Execution:
    """One run: its id (``$$.Execution.Id``), how Tasks call functions, how it waits, whether it was stopped."""

    arn: str
    call: Callable[[str, dict[str, Any]], Any]
    sleep: Callable[[float], object] = time.sleep
    stopped: Callable[[], bool] = lambda: False
    substitutions: Mapping[str, str] = field(default_factory=dict)


def load_definition(path: Path, substitutions: Mapping[str, str]) -> dict[str, Any]:
    """The definition in ``path`` with ``${Name}`` replaced as template.yaml's DefinitionSubstitutions do."""
    text = path.read_text()
    for name, value in substitutions.items():
        text = text.replace("${" + name + "}", value)
    return json.loads(text)


def read_path(data: Any, path: str, context: Mapping[str, Any]) -> Any:
    """The value at a JSONPath (``$``, ``$.a.b``, ``$$.Execution.Id``); ``_MISSING`` when it is absent."""
    root, rest = (context, path[2:]) if path.startswith("$$") else (data, path[1:])
    value = root
    for part in filter(None, rest.split(".")):
        if not isinstance(value, dict) or part not in value:
            return _MISSING
        value = value[part]
    return value


def _required(data: Any, path: str, context: Mapping[str, Any]) -> Any:
    value = read_path(data, path, context)
    if value is _MISSING:
        raise ExecutionFailed("States.Runtime", f"the path {path} is not in the state's input")
    return value


def fill(template: Any, data: Any, context: Mapping[str, Any]) -> Any:
    """A ``Parameters`` (or ``ResultSelector``) template filled from ``data``: keys ending ``.$`` are paths."""
    if isinstance(template, dict):
        out: dict[str, Any] = {}
        for key, value in template.items():
            if key.endswith(".$"):
                out[key[:-2]] = _intrinsic(value, data, context)
            else:
                out[key] = fill(value, data, context)
        return out
    if isinstance(template, list):
        return [fill(value, data, context) for value in template]
    return template


def _intrinsic(expression: str, data: Any, context: Mapping[str, Any]) -> Any:
    match = _MATH_ADD.match(expression.replace(" ", ""))
    if match:
        return sum(_required(data, part, context) if part.startswith("$") else json.loads(part)
                   for part in match.groups())
    if expression.startswith("States."):
        raise StateMachineError(f"the intrinsic {expression} is not supported locally")
    return copy.deepcopy(_required(data, expression, context))


def put_result(data: Any, result_path: str | None, result: Any) -> Any:
    """The state's output: ``result`` placed at ``ResultPath`` in its input (``null`` drops it, ``$`` replaces)."""
    if result_path is None:
        return data
    if result_path == "$":
        return result
    out = copy.deepcopy(data)
    target = out
    *parents, last = result_path[2:].split(".")
    for part in parents:
        target = target.setdefault(part, {})
    target[last] = result
    return out


def _choose(rule: Mapping[str, Any], data: Any, context: Mapping[str, Any]) -> bool:
    if "And" in rule:
        return all(_choose(part, data, context) for part in rule["And"])
    if "Or" in rule:
        return any(_choose(part, data, context) for part in rule["Or"])
    if "Not" in rule:
        return not _choose(rule["Not"], data, context)
    value = read_path(data, rule["Variable"], context)
    if "IsPresent" in rule:
        return (value is not _MISSING) == rule["IsPresent"]
    if value is _MISSING:
        raise ExecutionFailed("States.Runtime", f"the Choice reads {rule['Variable']}, which is not in the input")
    if "IsNull" in rule:
        return (value is None) == rule["IsNull"]
    for name, compare in _COMPARISONS.items():
        if name in rule:
            return compare(value, rule[name])
        if f"{name}Path" in rule:
            return compare(value, _required(data, rule[f"{name}Path"], context))
    raise StateMachineError(f"the Choice rule {sorted(rule)} is not supported locally")


def _matches(names: list[str], error: str) -> bool:
    return "States.ALL" in names or error in names or ("States.TaskFailed" in names and error != "States.Timeout")


def _run_task(state: Mapping[str, Any], data: Any, context: Mapping[str, Any], execution: Execution) -> Any:
    """Call the Task's function with its parameters, retrying as its ``Retry`` declares; its raw result."""
    payload = fill(state.get("Parameters", data), data, context)
    attempts: dict[int, int] = {}
    while True:
        try:
            if state["Resource"] == LAMBDA_INVOKE:
                return {"Payload": execution.call(payload["FunctionName"], payload.get("Payload", {})),
                        "StatusCode": 200}
            return execution.call(state["Resource"], payload)
        except (Stopped, StateMachineError):
            raise
        except Exception as exc:  # any failure of the step is a Task error, as Lambda reports it
            error = exc.error if isinstance(exc, ExecutionFailed) else type(exc).__name__
            # A Lambda Task's Cause is the function's error document (the finish steps read errorMessage back).
            cause = exc.cause if isinstance(exc, ExecutionFailed) else json.dumps(
                {"errorMessage": str(exc), "errorType": error})
            # The first retrier whose ErrorEquals names the error decides; past its MaxAttempts the error stands.
            retriers = state.get("Retry", [])
            index = next((i for i, r in enumerate(retriers) if _matches(r["ErrorEquals"], error)), None)
            if index is None or attempts.get(index, 0) >= retriers[index].get("MaxAttempts", 3):
                raise ExecutionFailed(error, cause) from exc
            made = attempts[index] = attempts.get(index, 0) + 1
            retrier = retriers[index]
            wait = retrier.get("IntervalSeconds", 1) * retrier.get("BackoffRate", 2.0) ** (made - 1)
            if retrier.get("JitterStrategy") == "FULL":
                wait = random.uniform(0, wait)  # spreading retries, not security
            execution.sleep(wait)
            if execution.stopped():
                raise Stopped(execution.arn) from exc


def run(definition: Mapping[str, Any], payload: Any, execution: Execution) -> Any:
    """Run the state machine on ``payload`` to its end; its output.

    Raises:
        ExecutionFailed: a Fail state, or an error no Catch took.
        Stopped: the execution was stopped between states.
        StateMachineError: the definition uses what this interpreter does not read.
    """
    context = {"Execution": {"Id": execution.arn, "Input": payload}}
    states = definition["States"]
    name, data = definition["StartAt"], payload
    while True:
        if execution.stopped():
            raise Stopped(execution.arn)
        state = states[name]
        kind = state["Type"]
        if kind == "Succeed":
            return data
        if kind == "Fail":
            raise ExecutionFailed(state.get("Error", "States.Fail"), state.get("Cause", ""))
        if kind == "Pass":
            result = fill(state["Parameters"], data, context) if "Parameters" in state else state.get("Result", data)
            data = put_result(data, state.get("ResultPath", "$"), result)
        elif kind == "Wait":
            seconds = _required(data, state["SecondsPath"], context) if "SecondsPath" in state else state["Seconds"]
            execution.sleep(float(seconds))
        elif kind == "Choice":
            name = next((rule["Next"] for rule in state["Choices"] if _choose(rule, data, context)), None) or \
                state.get("Default") or ""
            if not name:
                raise ExecutionFailed("States.NoChoiceMatched", "no Choice rule matched and there is no Default")
            continue
        elif kind == "Task":
            try:
                result = _run_task(state, data, context, execution)
                if "ResultSelector" in state:
                    result = fill(state["ResultSelector"], result, context)
                data = put_result(data, state.get("ResultPath", "$"), result)
            except ExecutionFailed as failure:
                catcher = next((c for c in state.get("Catch", []) if _matches(c["ErrorEquals"], failure.error)), None)
                if catcher is None:
                    raise
                data = put_result(data, catcher.get("ResultPath", "$"), {"Error": failure.error,
                                                                         "Cause": failure.cause})
                name = catcher["Next"]
                continue
        else:
            raise StateMachineError(f"the state type {kind} is not supported locally")
        if state.get("End"):
            return data
        name = state["Next"]
