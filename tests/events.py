"""Sample Lambda events from the repository's events/ folder (one loader for every test)."""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

EVENTS = Path(__file__).resolve().parents[1] / "events"


@cache
def _read(name: str) -> dict[str, Any]:
    return json.loads((EVENTS / f"{name}.json").read_text())


def load_event(name: str) -> dict[str, Any]:
    """A fresh copy of ``events/<name>.json`` (tests may change it)."""
    return copy.deepcopy(_read(name))


def with_body(event: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
    """The event carrying another JSON-RPC message."""
    event["body"] = json.dumps(message)
    headers = event.get("headers") or {}
    for key in list(headers):
        if key.lower() == "content-length":
            headers[key] = str(len(event["body"]))
    return event
