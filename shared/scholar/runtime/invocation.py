"""The message between the gateway (or a state machine) and a family function, and its answer."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class Invocation(BaseModel):
    """What a family function is asked to do: run one tool for one caller."""

    tool: str = Field(min_length=1, max_length=100)
    arguments: dict[str, Any] = Field(default_factory=dict)
    principal: str = Field(min_length=1, max_length=200)
    request_id: str = Field(default="", max_length=200)
    # Set when the call runs inside a task (retry state machine): never queue again, report instead.
    task_id: str | None = None


class Outcome(BaseModel):
    """A family function's answer: the tool's result, or the error envelope's body."""

    ok: bool
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
