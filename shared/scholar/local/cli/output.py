"""What the command line prints: readable text (or the result's JSON), errors on stderr with an exit status by
code, and progress on stderr while the work runs (a bar on a terminal, a plain line per step otherwise).

Exit statuses (docs/local.md lists the same table; a test holds every error code to one distinct status):

    0  ok                 4  rate_limited       8  forbidden
    1  internal           5  upstream_error     9  too_large
    2  invalid_argument   6  timeout
       (and usage)        7  unavailable
    3  not_found

stdout carries only the answer, so ``scholar get-paper ID --json | jq`` works; everything else goes to stderr.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from typing import Any, TextIO

from scholar.core.errors import (
    FORBIDDEN,
    INTERNAL,
    INVALID_ARGUMENT,
    NOT_FOUND,
    RATE_LIMITED,
    TIMEOUT,
    TOO_LARGE,
    UNAVAILABLE,
    UPSTREAM_ERROR,
    ScholarError,
)
from scholar.runtime.progress import Step

__all__ = ["EXIT_CODES", "EXIT_OK", "ProgressBar", "ProgressLine", "answer_stream", "error_json", "exit_code",
           "print_error", "render"]

EXIT_OK = 0
EXIT_CODES: dict[str, int] = {
    INTERNAL: 1,
    INVALID_ARGUMENT: 2,  # argparse's own usage errors exit 2 as well: the call is wrong either way
    NOT_FOUND: 3,
    RATE_LIMITED: 4,
    UPSTREAM_ERROR: 5,
    TIMEOUT: 6,
    UNAVAILABLE: 7,
    FORBIDDEN: 8,
    TOO_LARGE: 9,
}
# Record fields that name a record in one line, in the order they are tried.
_TITLE_FIELDS = ("title", "name", "label")
_ID_FIELDS = ("id", "paperId", "paper_id", "identifier", "task_id", "number", "isbn")
_INDENT = "  "
_ENDED = frozenset({"completed", "failed", "cancelled"})


def exit_code(err: ScholarError) -> int:
    """The process exit status of an error code (``internal`` for a code this table does not know)."""
    return EXIT_CODES.get(err.code, EXIT_CODES[INTERNAL])


def print_error(err: ScholarError, out: TextIO | None = None) -> None:
    """``error [code]: message`` and, when the envelope has one, the recovery hint (on stderr by default)."""
    out = out or sys.stderr
    body = err.envelope_body()
    out.write(f"error [{body['code']}]: {body['message']}\n")
    hint = (body.get("recovery") or {}).get("hint")
    if hint:
        out.write(f"hint: {hint}\n")


def error_json(err: ScholarError) -> str:
    """The error envelope ``{"error": {code, message, …}}`` as ``--json`` prints it on stdout."""
    return json.dumps(err.to_envelope(), ensure_ascii=False, indent=2)


@contextmanager
def answer_stream() -> Iterator[TextIO]:
    """Send whatever writes to stdout meanwhile (a handler's log, a library's print) to stderr; yield the real stdout.

    Done on the descriptors, not on ``sys.stdout``: a logging handler made earlier holds the old stream object.
    """
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    answer = open(saved, "w", encoding="utf-8", closefd=False)  # noqa: SIM115  # closed below, after the block
    try:
        with redirect_stdout(sys.stderr):  # print() to a sys.stdout that is not fd 1 (a test's capture)
            yield answer
    finally:
        sys.stdout.flush()
        answer.flush()
        answer.close()
        os.dup2(saved, 1)
        os.close(saved)


def render(result: dict[str, Any], *, as_json: bool) -> str:
    """The answer as stdout shows it: the dict's JSON (``--json``), else an indented outline of it (fields without a
    value left out, as the JSON of a tool's answer leaves them out)."""
    if as_json:
        return json.dumps(result, ensure_ascii=False, indent=2)
    return "\n".join(_lines(_without_nulls(result), 0))


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_without_nulls(item) for item in value]
    return value


def _one_line(record: dict[str, Any]) -> str | None:
    """``title (year) [id]`` for a record that has a title, else None."""
    title = next((record[f] for f in _TITLE_FIELDS if isinstance(record.get(f), str)), None)
    if title is None:
        return None
    year = record.get("year")
    ident = next((record[f] for f in _ID_FIELDS if isinstance(record.get(f), str | int)), None)
    return title + (f" ({year})" if year else "") + (f"  [{ident}]" if ident is not None else "")


def _scalar(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _lines(value: Any, depth: int) -> list[str]:
    pad = _INDENT * depth
    if isinstance(value, dict):
        lines = []
        for key, item in value.items():
            if isinstance(item, dict | list) and item:
                lines += [f"{pad}{key}:", *_lines(item, depth + 1)]
            elif isinstance(item, str) and "\n" in item:
                lines += [f"{pad}{key}:", item]  # page text and Markdown print as they are, unindented
            else:
                lines.append(f"{pad}{key}: {_scalar(item)}")
        return lines
    if isinstance(value, list):
        lines = []
        for number, item in enumerate(value, 1):
            head = _one_line(item) if isinstance(item, dict) else None
            if head is not None:
                lines.append(f"{pad}{number}. {head}")
            elif isinstance(item, dict | list):
                lines += [f"{pad}-", *_lines(item, depth + 1)]
            else:
                lines.append(f"{pad}- {_scalar(item)}")
        return lines
    return [f"{pad}{_scalar(value)}"]


class ProgressLine:
    """The state of a queued task on stderr after each poll: one rewritten line on a terminal, else one line per
    change of status (a log or CI keeps a readable trail)."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stderr
        self.tty = self.out.isatty()
        self._status = ""
        self._width = 0

    def __call__(self, answer: dict[str, Any]) -> None:
        status = str(answer.get("status", "?"))
        text = f"[{answer.get('tool', 'task')}] {status} {float(answer.get('elapsed_s') or 0):.0f} s"
        if answer.get("hint"):
            text += f" · {answer['hint']}"
        text = text[:120]
        if self.tty:
            self.out.write("\r" + text.ljust(self._width))
            self._width = len(text)
            if status in _ENDED:
                self.out.write("\n")
        elif status != self._status:
            self.out.write(text + "\n")
        self._status = status
        self.out.flush()


class ProgressBar:
    """Progress steps (``scholar.runtime.progress``) on stderr: on a terminal one rewritten line with a bar when the
    total is known, cleared when the answer comes; otherwise one plain line per new message (a log keeps a trail)."""

    WIDTH = 24

    WORKING_AFTER_S = 0.5  # a call still running this long without a step says it is working (a fast one: nothing)

    def __init__(self, out: TextIO | None = None, *, label: str = "") -> None:
        self.out = out or sys.stderr
        self.tty = self.out.isatty()
        self._began = time.monotonic()
        self._last = ""
        self._width = 0
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        if label:
            self._timer = threading.Timer(self.WORKING_AFTER_S, self._working, args=(label,))
            self._timer.daemon = True
            self._timer.start()

    def _working(self, label: str) -> None:
        with self._lock:
            if not self._last:
                self._draw(Step(0, None, f"{label}: working"))

    def __call__(self, step: Step) -> None:
        with self._lock:
            self._draw(step)

    def _draw(self, step: Step) -> None:
        message = str(step.message or "working")
        if step.total:
            filled = int(self.WIDTH * min(1.0, step.done / step.total))
            bar = f"[{'#' * filled}{'.' * (self.WIDTH - filled)}] {step.done:g}/{step.total:g} "
        else:
            bar = ""
        if self.tty:
            text = f"{bar}{message} {time.monotonic() - self._began:.0f} s"[:120]
            self.out.write("\r" + text.ljust(self._width))
            self._width = len(text)
        elif message != self._last:
            self.out.write(f"{bar}{message}\n")
        self._last = message
        self.out.flush()

    def clear(self) -> None:
        """Stop the working notice; remove the bar's line (on a terminal): the answer follows on a clean screen."""
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            self._last = self._last or "done"  # a notice already due finds the call ended
        if self.tty and self._width:
            self.out.write("\r" + " " * self._width + "\r")
            self.out.flush()
            self._width = 0
