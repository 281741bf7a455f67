"""Task states (seed 000 "Task Polling", DESIGN §5)."""

from __future__ import annotations

from typing import Literal

TaskStatus = Literal["pending", "running", "completed", "failed", "cancelled"]
TERMINAL: frozenset[str] = frozenset({"completed", "failed", "cancelled"})
