"""Fixtures for tests against real llama.cpp servers (SmolLM2-135M on CPU).

Registered as a plugin by tests/conftest.py, so any test can ask for ``realfleet`` or ``smollm2``.
Everything skips, with the reason, when xllamacpp or the model is not installed.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest

from tokenpilot.llamafleet import LlamaFleet, LlamaServerSpec, LlamaUnavailable, require_llama

# Heterogeneous on purpose: slot counts and per-request contexts all differ.
FLEET_SPECS = (LlamaServerSpec(slots=1, ctx=512), LlamaServerSpec(slots=2, ctx=1024),
               LlamaServerSpec(slots=2, ctx=2048))


def llama_or_skip() -> Path:
    try:
        path = require_llama()
    except LlamaUnavailable as exc:
        pytest.skip(f"real llama.cpp tests need it: {exc}")
    for mod in ("tokenizers", "jinja2"):
        if importlib.util.find_spec(mod) is None:
            pytest.skip(f"real llama.cpp tests need {mod}: pip install 'tokenpilot[llama]'")
    return path


@pytest.fixture(scope="session")
def smollm2() -> Path:
    """The SmolLM2-135M-Instruct GGUF file."""
    return llama_or_skip()


@pytest.fixture(scope="session")
def realfleet(smollm2: Path) -> Iterator[LlamaFleet]:
    """Three live llama.cpp servers on 127.0.0.1 (1, 2, 2 slots; 512, 1024, 2048 tokens)."""
    with LlamaFleet(FLEET_SPECS, model=smollm2) as fleet:
        yield fleet
