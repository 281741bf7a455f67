"""The task tools (seed 000 "Task Polling"): polling work that continues in the background."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field

from scholar.core.catalogue import READ_ONLY_LOCAL, ToolInput, spec_maker

MAX_WAIT_S = 20


class GetTaskResultInput(ToolInput):
    task_id: Annotated[
        str, Field(min_length=8, max_length=64, pattern=r"^[A-Za-z0-9_-]+$", description="Task id from a queued answer")
    ]
    wait_s: Annotated[int, Field(ge=0, le=MAX_WAIT_S, description="Seconds to wait for the task to finish before "
                                 "answering (0: answer at once)")] = 0


class ListTasksInput(ToolInput):
    limit: Annotated[int, Field(ge=1, le=100)] = 50


class TaskResult(BaseModel):
    task_id: str
    status: str = Field(description="pending | running | completed | failed | cancelled")
    tool: str
    elapsed_s: float = Field(description="Seconds since the task was created (until it finished, once finished)")
    result: dict[str, Any] | None = Field(default=None, description="The tool's result, once completed")
    error: dict[str, Any] | None = Field(default=None, description="The error envelope body, once failed")
    hint: str | None = Field(default=None, description="What the task is doing and how long it may take")
    poll_after_s: int | None = Field(default=None, description="Seconds to wait before polling again")


class TaskSummary(BaseModel):
    task_id: str
    status: str
    tool: str
    created_at: float
    elapsed_s: float


class TaskList(BaseModel):
    tasks: list[TaskSummary]
    total: int


# The task tools read the caller's own task records only.
tasks_tool = spec_maker("tasks", annotations=READ_ONLY_LOCAL)
_GET = tasks_tool("get_task_result", "Get task result",
                  "Poll a task of a queued answer ({queued: true, task_id}): its status, elapsed time and a hint while "
                  "it runs, the tool's result once completed, or a typed error once failed. Only the caller that "
                  "started a task sees it.",
                  GetTaskResultInput, TaskResult, relays_results=True)

TOOLS = (
    _GET,
    tasks_tool("get_job_result", "Get job result",
               "Alias of get_task_result (a job handle is a task id).",
               GetTaskResultInput, TaskResult, relays_results=True),
    tasks_tool("list_tasks", "List tasks",
               "The caller's unexpired background tasks, newest first, with their status.",
               ListTasksInput, TaskList),
)
