"""read_paper (issue 12): first call (queue + PDF pipeline conversion to completion) and second call (artifact reuse).

On the local stack (moto, Step Functions executing the real pipeline steps in-process), the research function
called in-process as the gateway calls it:

- first call: a PDF artifact not converted yet → ``{queued: true}`` → the pipeline converts it → the task is
  completed; timed from the call until the TaskTable says completed (polled every 20 ms). Each run uses a new
  copy of the recorded PDF (a comment appended after ``%%EOF``, so a new SHA-256 and a new conversion).
- second call: the same pages again, answered from the stored Markdown.
- figure: one figure rendered from the stored PDF (PNG image block).

Medians over ``--repeat`` runs. Run: ``python -m benchmarks read`` (``--repeat N``, default 5).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEFAULT_FIXTURES = Path(os.environ.get("SCHOLAR_FIXTURES_DIR", REPO.parent / "shared" / "fixtures"))
PDF = "arxiv_2501.10120v1_pasa.pdf"  # 15 pages
POLL_S = 0.02
DEADLINE_S = 120.0


def _line(name: str, values_ms: list[float]) -> None:
    print(f"  {name:<58} median {statistics.median(values_ms):9.1f} ms   n={len(values_ms)}", flush=True)


def _call(arguments: dict[str, Any]) -> dict[str, Any]:
    from scholar.runtime.invocation import Invocation
    from scholar.runtime.invoke import invoke_family

    outcome = invoke_family("research", Invocation(tool="read_paper", arguments=arguments, principal="bench",
                                                   request_id="bench"))
    if not outcome.ok or outcome.result is None:
        raise RuntimeError(f"read_paper failed: {outcome.error}")
    return outcome.result


def _wait(task_id: str) -> None:
    from scholar.store.tasks import TaskStore

    tick, store = threading.Event(), TaskStore()
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        task = store.get(task_id, "bench")
        if task is not None and task.status == "completed":
            return
        if task is not None and task.status in ("failed", "cancelled"):
            raise RuntimeError(f"task {task_id} {task.status}: {task.error}")
        tick.wait(POLL_S)
    raise RuntimeError(f"task {task_id} not completed within {DEADLINE_S} s")


def _upload(bucket: str, data: bytes) -> str:
    import boto3

    sha = hashlib.sha256(data).hexdigest()
    boto3.client("s3").put_object(Bucket=bucket, Key=f"pdfs/{sha}.pdf", Body=data)
    return f"pdfs/{sha}.pdf"


def measure(fixtures: Path, repeat: int) -> dict[str, list[float]]:
    from scholar.local.stack import LocalStack
    from tests.fakes.upstream import FakeUpstream

    pdf = (fixtures / "pdfs" / PDF).read_bytes()
    first, second, figure = [], [], []
    with FakeUpstream(fixtures) as fake, LocalStack(
        template=REPO / "template.yaml",
        extra_env={"SCHOLAR_UPSTREAM_PROXY_BASE": fake.base_url, "SCHOLAR_PACE_SCALE": "0"},
    ) as stack:
        bucket = stack.env["SCHOLAR_ARTIFACT_BUCKET"]
        for run in range(repeat):
            ref = _upload(bucket, pdf + f"\n% read_bench copy {run} {time.time_ns()}\n".encode())
            arguments = {"identifier": ref, "pages": "1-10"}
            began = time.perf_counter()
            queued = _call(arguments)
            if not queued.get("queued"):
                raise RuntimeError("the first call was not queued: the copy was converted before")
            _wait(queued["task_id"])
            first.append((time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            answer = _call(arguments)
            second.append((time.perf_counter() - began) * 1000)
            if not answer.get("cached"):
                raise RuntimeError("the second call was not answered from the stored artifacts")
            began = time.perf_counter()
            _call({"identifier": ref, "figure": "Figure 2"})
            figure.append((time.perf_counter() - began) * 1000)
    return {"first": first, "second": second, "figure": figure}


def main(argv: list[str] | Path | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fixtures", type=Path, default=DEFAULT_FIXTURES)
    parser.add_argument("--repeat", type=int, default=5)
    # `python -m benchmarks` passes the fixtures folder; the command line passes options.
    args = parser.parse_args(["--fixtures", str(argv)] if isinstance(argv, Path) else argv)
    if not (args.fixtures / "pdfs" / PDF).is_file():
        print(f"read_bench: {PDF} not under {args.fixtures / 'pdfs'} (set SCHOLAR_FIXTURES_DIR); skipped")
        return 0
    figures = measure(args.fixtures, args.repeat)
    print(f"read_paper on the local stack ({PDF}, pages 1-10)")
    _line("first call: queue + pipeline conversion to completion", figures["first"])
    _line("second call: answered from the stored Markdown", figures["second"])
    _line("figure=Figure 2 from the stored PDF (PNG render)", figures["figure"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
