"""The README's offline demo (issue 41): ``python -m tests.fakes.upstream`` starts, from the checkout, in a Python
that has no pytest (a venv made with a plain ``pip install .``), and finds ../shared/fixtures by itself."""

from __future__ import annotations

import subprocess
import sys
import threading

from tests.fixtures_dir import REPO, fixtures_dir

WITHOUT_PYTEST = ("import runpy, sys; sys.modules['pytest'] = None; sys.argv = ['upstream', '--port', '0']; "
                  "runpy.run_module('tests.fakes.upstream', run_name='__main__')")


def test_the_fake_upstream_demo_starts_without_pytest_and_names_its_address():
    fixtures_dir()  # skips without the recorded fixtures
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO / "shared")}
    demo = subprocess.Popen([sys.executable, "-c", WITHOUT_PYTEST], cwd=REPO, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    watchdog = threading.Timer(60, demo.kill)  # a demo that never speaks fails the test instead of hanging it
    watchdog.start()
    try:
        first = demo.stdout.readline() if demo.stdout else ""
        second = demo.stdout.readline() if demo.stdout else ""
    finally:
        watchdog.cancel()
        demo.terminate()
        _, err = demo.communicate(timeout=30)

    assert first.startswith("fake upstream: ") and "recorded routes" in first, err
    assert second.startswith("set SCHOLAR_UPSTREAM_PROXY_BASE=http://127.0.0.1:"), err
