"""What the command line prints: readable text (or the result's JSON), errors on stderr with an exit status by
code, and a progress line on stderr while a queued task runs.

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

__all__ = ["EXIT_CODES", "EXIT_OK", "ProgressLine", "answer_stream", "exit_code", "print_error", "render"]

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
    """The answer as stdout shows it: the dict's JSON (``--json``), else an indented outline of it."""
    if as_json:
        return json.dumps(result, ensure_ascii=False, indent=2)
    return "\n".join(_lines(result, 0))


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
