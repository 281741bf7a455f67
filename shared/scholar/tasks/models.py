"""Task records and the answers of the task tools (seed 000 "Task Polling", DESIGN §5)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

TaskStatus = Literal["pending", "running", "completed", "failed", "cancelled"]
TERMINAL: frozenset[str] = frozenset({"completed", "failed", "cancelled"})


class QueuedResult(BaseModel):
    """What a tool answers when its work continues in the background."""

    queued: Literal[True] = True
    task_id: str
    tool: str
    poll_after_s: int = Field(description="Seconds to wait before polling get_task_result")
    reason: str | None = Field(default=None, description="Why the call was queued (e.g. rate_limited)")
