"""Builders several brickguard test modules share: where the fixtures are, a Config for the
fixture C files, and an SDK index cache kept out of the repository."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from brickguard.config import Config

TESTS = Path(__file__).parent
CASES = TESTS / "cases"
STUB_INCLUDE = CASES / "include"  # cmsis_stub.h: a minimal CMSIS / FreeRTOS stand-in
TEST_SDK = TESTS / "sdk"  # the team's own test SDK (a HAL, media API v1 and v2)


def fixture_config(root: Path, **overrides: Any) -> Config:
    """A Config for fixture C files under ``root``: cmsis_stub.h on the include path and one
    parser process (the files are tiny: a process pool would cost more than it saves)."""
    return Config(root=root, include=[STUB_INCLUDE], jobs=1, **overrides)


def isolate_sdk_cache(tmp_path_factory: pytest.TempPathFactory,
                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Point the SDK index cache at one folder per test session, never under the repository."""
    monkeypatch.setenv("BRICKGUARD_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "sdk-cache"))
