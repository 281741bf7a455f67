"""In-process fakes of the outside world for tests.

``tests.fakes.upstream.FakeUpstream`` replays the recorded upstreams.

Nothing is re-exported here, so ``python -m tests.fakes.upstream`` runs the module once, not twice.
"""
