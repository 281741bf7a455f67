"""Asking every source at once: per-source queues, per-source time budgets, late sources.

Each source has its own queue (a semaphore sized by its registry ``concurrency``) in front of the shared
limiter of scholar.sources.http, so several requests to one source go in order at its pace while different sources
run side by side. A source that has not answered within its budget is *late*: the search goes on without it
and takes its papers if they arrive before the final ranking (``collect_late``); one that never does is
reported as failed with code ``timeout``, never as "no results".
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from scholar.core.errors import ScholarError, UpstreamTimeoutError
from scholar.core.records import Paper
from scholar.families.research.search.query import prepare
from scholar.runtime.progress import report
from scholar.sources.paper_search import ADAPTERS
from scholar.sources.registry import SOURCES, Source

logger = logging.getLogger(__name__)
T = TypeVar("T")


class Queues:
    """One queue per source for the requests of one search, and the count of requests each received."""

    def __init__(self) -> None:
        self._gates: dict[str, asyncio.Semaphore] = {}
        self.requests: dict[str, int] = {}

    @contextlib.asynccontextmanager
    async def slot(self, source: str) -> AsyncIterator[None]:
        gate = self._gates.setdefault(source, asyncio.Semaphore(SOURCES[source].concurrency))
        async with gate:
            self.requests[source] = self.requests.get(source, 0) + 1
            yield

    async def call(self, source: str, fn: Callable[[], Awaitable[T]]) -> T:
        async with self.slot(source):
            return await fn()

    @property
    def total(self) -> int:
        return sum(self.requests.values())


@dataclass
class Answer:
    """What one source answered: papers, or the error it failed with (never both)."""

    source: str
    papers: list[Paper] = field(default_factory=list)
    error: ScholarError | None = None
    late: bool = False
    elapsed_s: float = 0.0


class FanOut:
    """The searches of one question, started together; answers are read in two waves (on time, late)."""

    def __init__(self, question: str, sources: Sequence[Source], *, per_source: int, queues: Queues,
                 budgets: dict[str, float] | None = None) -> None:
        self.question = question
        self.queues = queues
        self.per_source = per_source
        self.budgets = {s.name: (budgets or {}).get(s.name, s.search_budget_s) for s in sources}
        self._tasks: dict[str, asyncio.Task[Answer]] = {}
        self._started = 0.0
        self._sources = list(sources)
        self._answered = 0
        self.late: list[str] = []

    def start(self) -> None:
        """Send every search now."""
        self._started = time.monotonic()
        report(0, len(self._sources), f"search: asking {len(self._sources)} sources")
        for source in self._sources:
            self._tasks[source.name] = asyncio.create_task(self._ask(source), name=f"search:{source.name}")

    async def _ask(self, source: Source) -> Answer:
        began = time.monotonic()
        query = prepare(self.question, source)
        limit = min(self.per_source, source.page_limit or self.per_source)
        try:
            papers = await self.queues.call(source.name, lambda: ADAPTERS[source.name](query, limit))
        except ScholarError as err:
            return self._answered_by(Answer(source.name, error=err, elapsed_s=time.monotonic() - began))
        return self._answered_by(Answer(source.name, papers=papers, elapsed_s=time.monotonic() - began))

    def _answered_by(self, answer: Answer) -> Answer:
        self._answered += 1
        report(self._answered, len(self._sources), f"search: {answer.source} answered")
        return answer

    async def on_time(self) -> list[Answer]:
        """The answers that came within each source's budget; the others are marked late and keep running."""

        async def watch(name: str, task: asyncio.Task[Answer]) -> None:
            left = self._started + self.budgets[name] - time.monotonic()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(task), timeout=max(0.0, left))

        await asyncio.gather(*(watch(n, t) for n, t in self._tasks.items()))
        self.late = [name for name, task in self._tasks.items() if not task.done()]
        return [task.result() for task in self._tasks.values() if task.done()]

    async def collect_late(self, wait_s: float) -> list[Answer]:
        """Late answers that arrive within ``wait_s`` more seconds; the rest are cancelled and reported as timeouts."""
        pending = [self._tasks[name] for name in self.late]
        if not pending:
            return []
        done, still = await asyncio.wait(pending, timeout=max(0.0, wait_s))
        answers = [task.result() for task in done]
        for task in still:
            task.cancel()
        for name in self.late:
            if self._tasks[name] in still:
                budget = self.budgets[name]
                err = UpstreamTimeoutError(f"{name} did not answer within its {budget:g} s search budget", source=name)
                answers.append(Answer(name, error=err, late=True, elapsed_s=time.monotonic() - self._started))
        for answer in answers:
            answer.late = True
        if still:
            await asyncio.gather(*still, return_exceptions=True)  # let cancellations finish inside this call
        return answers
