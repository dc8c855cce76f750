"""The e2e mark is honest: a test that serves on loopback without it fails (tests/conftest.py)."""

from __future__ import annotations

import socket

import pytest


def _listen() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()


def test_listening_without_the_e2e_mark_fails_and_says_to_mark_it() -> None:
    with pytest.raises(pytest.fail.Exception, match=r"starts a server on loopback: mark it "
                                                    r"@pytest.mark.e2e"):
        _listen()


@pytest.mark.e2e
def test_an_e2e_test_may_listen() -> None:
    _listen()
