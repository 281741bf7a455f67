"""``pip install <wheel>`` into a fresh virtual environment, then every way a user runs it, from a folder that is not
the checkout and with no checkout on any path (issue 36): the command line, ``scholar mcp`` over stdio, ``scholar
serve`` over HTTP, ``scholar doctor`` and the Python API, against the fake upstream.

Passing means a plain install works by itself: the family code and the state machine definitions ship in the wheel,
``serve`` and ``doctor`` need no ``moto``, and nothing but the answer reaches stdout (on ``scholar mcp``, nothing but
JSON-RPC) while stderr carries no Powertools EMF or JSON log line, traceback or warning.

One module (one xdist worker, ``--dist loadfile``): its tests share the one virtual environment.
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from urllib.request import url2pathname

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.e2e.polling import finished
from tests.fakes.upstream import FakeUpstream
from tests.fixtures.waiting import until_sync
from tests.packaging.install import (
    ARXIV_ID,
    ARXIV_TITLE,
    DOI,
    DOI_TITLE,
    QUERY,
    STEP_TIMEOUT_S,
    environ,
    interpreter,
    machine_settings,
    noise,
    stdio_session,
)

pytestmark = pytest.mark.packaging

SESSION_TIMEOUT_S = 180  # one MCP session: start, calls, a download polled to its end
EMF = ('"_aws"', "CloudWatchMetrics")


@dataclass(frozen=True)
class Installed:
    """The fresh virtual environment the wheel went into, and its site-packages."""

    venv: Path
    site: Path

    def bin(self, name: str) -> str:
        return str(self.venv / "bin" / name)


@dataclass(frozen=True)
class User:
    """One user's machine: the installed package, a data folder of their own, a working folder not the checkout."""

    installed: Installed
    home: Path
    cwd: Path
    env: dict[str, str]

    def run(self, *command: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(command, cwd=self.cwd, env=env or self.env, capture_output=True, text=True,
                              timeout=STEP_TIMEOUT_S, check=False)

    def scholar(self, *args: str) -> subprocess.CompletedProcess[str]:
        return self.run(self.installed.bin("scholar"), *args)


@pytest.fixture(scope="module")
def installed(wheel: Path, elsewhere: Path, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """A fresh venv with the wheel installed as a user installs it: plain pip, no extras, no -e, no PYTHONPATH."""
    venv = tmp_path_factory.mktemp("user") / "venv"
    # Without pip of its own (ensurepip takes seconds): this suite's pip installs into it (pip --python).
    made = subprocess.run([interpreter(), "-m", "venv", "--without-pip", str(venv)], cwd=elsewhere, env=environ(),
                          capture_output=True, text=True, timeout=STEP_TIMEOUT_S, check=False)
    assert made.returncode == 0, made.stderr[-3000:]
    python = str(venv / "bin" / "python")
    # --no-compile: the .pyc files are written on first import instead (the install takes half as long)
    pip = [sys.executable, "-m", "pip", "--python", python]
    done = subprocess.run([*pip, "install", "-q", "--no-compile", str(wheel)], cwd=elsewhere, env=environ(),
                          capture_output=True, text=True, timeout=STEP_TIMEOUT_S, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=elsewhere,
                          env=environ(), capture_output=True, text=True, timeout=60, check=True).stdout.strip()
    return Installed(venv, Path(site))


@pytest.fixture
def user(installed: Installed, fake_upstream: FakeUpstream, elsewhere: Path, tmp_path: Path) -> User:
    home = tmp_path / "home"
    home.mkdir()
    env = environ(machine_settings(fake_upstream, home), path=installed.venv / "bin")
    return User(installed, home, elsewhere, env)


def answer(done: subprocess.CompletedProcess[str]) -> Any:
    """The command's answer: it exited 0, stderr holds nothing a user must not see, stdout is one JSON value."""
    assert done.returncode == 0, f"exit {done.returncode}; stderr: {done.stderr[-3000:]}"
    assert not noise(done.stderr), noise(done.stderr)
    try:
        return json.loads(done.stdout)
    except ValueError:
        pytest.fail(f"stdout is not one JSON answer and nothing else: {done.stdout[:3000]!r}")


def moto_absent(user: User) -> None:
    found = user.run(user.installed.bin("python"), "-c",
                     "import importlib.util; print(importlib.util.find_spec('moto'))")
    assert found.stdout.strip() == "None", f"moto is installed in the fresh venv: {found.stdout}{found.stderr}"


# What only the AWS backend and the deployment need (the aws extra, issue 41): a plain install has none of them.
AWS_ONLY = ("boto3", "aws_lambda_powertools", "s3transfer")


def aws_only_absent(user: User) -> None:
    found = user.run(user.installed.bin("python"), "-c", "import importlib.util; "
                     f"print([name for name in {AWS_ONLY!r} if importlib.util.find_spec(name)])")
    assert found.stdout.strip() == "[]", f"installed without the aws extra: {found.stdout}{found.stderr}"


def test_the_installed_copy_is_the_one_imported_and_moto_is_not_installed(user):
    done = user.run(user.installed.bin("python"), "-c", "import scholar; print(scholar.__file__)")

    assert done.returncode == 0, done.stderr[-3000:]
    assert Path(done.stdout.strip()).is_relative_to(user.installed.site), done.stdout
    moto_absent(user)
    aws_only_absent(user)


def test_a_cached_get_paper_prints_nothing_on_stderr(user):
    answer(user.scholar("get-paper", DOI, "--json"))
    again = user.scholar("get-paper", DOI)

    assert again.returncode == 0 and DOI in again.stdout, again.stderr
    assert again.stderr == ""


def test_get_paper_prints_the_paper_as_json_and_nothing_else(user):
    paper = answer(user.scholar("get-paper", DOI, "--json"))

    assert paper["externalIds"]["DOI"] == DOI
    assert paper["title"].startswith(DOI_TITLE)


def test_search_prints_the_ranked_results_as_json_and_nothing_else(user):
    found = answer(user.scholar("search", QUERY, "--limit", "5", "--json"))

    assert found["query"] == QUERY
    assert 0 < len(found["results"]) <= 5 and all(hit["title"] for hit in found["results"])


def test_a_paper_added_to_the_library_is_listed_by_a_later_run(user):
    added = answer(user.scholar("library", "add", DOI, "--json"))
    listed = answer(user.scholar("library", "list", "--json"))

    assert added["created"] is True
    assert [item["item_id"] for item in listed["items"]] == [added["item"]["item_id"]]
    assert listed["items"][0]["title"].startswith(DOI_TITLE)


def test_download_paper_runs_the_pipeline_to_its_end_and_keeps_the_pdf_in_the_data_folder(user):
    kept = answer(user.scholar("download-paper", ARXIV_ID, "--json"))

    assert (kept["pdf_source"], kept["newly_kept"]) == ("arxiv", True), kept
    assert kept["metadata"]["title"].startswith(ARXIV_TITLE)
    pdf = Path(url2pathname(urlsplit(kept["pdf_url"]).path))
    assert pdf.is_file() and pdf.is_relative_to(user.home), kept["pdf_url"]
    listed = answer(user.scholar("library", "list", "--json"))
    assert [item["item_id"] for item in listed["items"]] == [kept["item_id"]]


def test_scholar_mcp_serves_get_paper_and_a_download_polled_to_its_end_with_only_json_rpc_on_stdout(user, tmp_path):
    params = StdioServerParameters(command=user.installed.bin("scholar"), args=["mcp"], env=user.env, cwd=user.cwd)
    errlog = tmp_path / "stderr.txt"

    async def session() -> tuple[Any, Any, Any, list[Exception]]:
        with anyio.fail_after(SESSION_TIMEOUT_S):
            async with stdio_session(params, errlog) as served:
                paper = await served.client.call_tool("get_paper", {"identifier": DOI})
                queued = await served.client.call_tool("download_paper", {"identifier": ARXIV_ID})
                done = None
                if not queued.is_error and queued.structured_content.get("queued"):
                    done = await finished(served.client, queued.structured_content["task_id"], within_s=120)
                return paper, queued, done, served.unparsed

    paper, queued, done, unparsed = anyio.run(session)

    stderr = errlog.read_text(encoding="utf-8")
    assert not noise(stderr), noise(stderr)
    assert not unparsed, f"stdout lines that are not JSON-RPC: {unparsed}"
    assert not paper.is_error, paper.structured_content
    assert paper.structured_content["externalIds"]["DOI"] == DOI
    assert not queued.is_error and queued.structured_content["queued"] is True, queued.structured_content
    assert done is not None and done["status"] == "completed", done
    assert done["result"]["pdf_source"] == "arxiv" and done["result"]["newly_kept"] is True


def listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_scholar_serve_answers_mcp_over_http_without_moto_installed(user, tmp_path):
    moto_absent(user)
    port = free_port()
    out, err = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    with out.open("w") as stdout, err.open("w") as stderr:
        server = subprocess.Popen([user.installed.bin("scholar"), "serve", "--port", str(port)], cwd=user.cwd,
                                  env=user.env, stdout=stdout, stderr=stderr)
    try:
        until_sync(lambda: server.poll() is not None or listening(port), bool, within_s=90, what="scholar serve")
        assert server.poll() is None, f"scholar serve exited {server.returncode}: {err.read_text()[-3000:]}"

        async def call() -> Any:
            with anyio.fail_after(SESSION_TIMEOUT_S):
                async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                    return await client.call_tool("get_paper", {"identifier": DOI})

        paper = anyio.run(call)
    finally:
        server.send_signal(signal.SIGTERM)  # as a service manager stops it (uvicorn shuts down, then exits)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=30)

    assert not paper.is_error, paper.structured_content
    assert paper.structured_content["externalIds"]["DOI"] == DOI
    logged = out.read_text() + err.read_text()
    assert not [marker for marker in (*EMF, "Traceback") if marker in logged], logged[-3000:]


def test_scholar_doctor_probes_the_upstreams_without_moto_installed(user):
    moto_absent(user)

    done = user.scholar("doctor", "--network")

    assert not noise(done.stderr), noise(done.stderr)
    # 1 is the doctor's own verdict when a probe fails: the fake upstream has no route for a few probes
    assert done.returncode in (0, 1), f"exit {done.returncode}; stderr: {done.stderr[-3000:]}"
    lines = done.stdout.splitlines()
    assert lines and lines[0].split()[:3] == ["source", "probe", "status"], done.stdout[-3000:]
    assert lines[-1].split()[1:3] == ["sources", "judged,"] and "sources probed," in lines[-1], done.stdout[-3000:]
    assert any(line.split()[:2] == ["s2", "ok"] for line in lines), done.stdout[-3000:]


# Two Scholar objects over two folders in one process, used from two threads at once; one closed, the other goes on.
API_SCRIPT = """
import json, sys, threading
from scholar import Scholar

first_home, second_home, first_id, second_id = sys.argv[1:5]
first, second = Scholar(home=first_home), Scholar(home=second_home)
titles, errors = {}, []

def use(name, api, identifier):
    try:
        api.library_add(identifier=identifier)
        titles[name] = [item["title"] for item in api.library_list()["items"]]
    except Exception as exc:
        errors.append(f"{name}: {exc!r}")

threads = [threading.Thread(target=use, args=("first", first, first_id)),
           threading.Thread(target=use, args=("second", second, second_id))]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join(timeout=120)
first.close()
titles["second_after_first_closed"] = [item["title"] for item in second.library_list()["items"]]
second.close()
print(json.dumps({"titles": titles, "errors": errors, "alive": [t.name for t in threads if t.is_alive()]}))
"""


def test_two_scholars_over_two_folders_in_one_process_keep_their_own_libraries_across_threads(user, tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"

    done = user.run(user.installed.bin("python"), "-c", API_SCRIPT, str(first), str(second), DOI, ARXIV_ID)

    result = answer(done)
    assert result["errors"] == [] and result["alive"] == [], result
    [first_title] = result["titles"]["first"]
    [second_title] = result["titles"]["second"]
    assert first_title.startswith(DOI_TITLE) and second_title.startswith(ARXIV_TITLE)
    assert result["titles"]["second_after_first_closed"] == [second_title]
    assert list(user.home.iterdir()) == []  # SCHOLAR_HOME is not where Scholar(home=…) keeps anything
