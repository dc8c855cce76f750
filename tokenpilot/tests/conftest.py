"""Shared pytest setup for tokenpilot's tests."""

from __future__ import annotations

import socket

import pytest

from tokenpilot.llamafleet import LlamaFleet

# Real llama.cpp fixtures (realfleet, smollm2): one fleet per session, skipped when not installed.
pytest_plugins = ["conftest_llama"]

# Session or module fixtures that start servers before any test body runs.
E2E_FIXTURES = ("realfleet", "tradeoff_run")


@pytest.fixture(autouse=True)
def _servers_only_in_e2e_tests(request: pytest.FixtureRequest,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    """`make test-fast` runs ``-m "not e2e"``; this keeps that mark honest. A test without it
    that listens on a socket (ServerPool, asyncio.start_server) or starts llama.cpp servers
    fails, saying to mark it, instead of slowing the fast run down unnoticed."""
    if request.node.get_closest_marker("e2e") is not None:
        return
    nodeid = request.node.nodeid

    def refuse(*args: object, **kwargs: object) -> None:
        pytest.fail(f"{nodeid} starts a server on loopback: mark it @pytest.mark.e2e",
                    pytrace=False)

    for name in E2E_FIXTURES:
        if name in request.fixturenames:
            refuse()
    monkeypatch.setattr(socket.socket, "listen", refuse)
    monkeypatch.setattr(LlamaFleet, "start", refuse)
