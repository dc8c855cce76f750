"""Where the data shared beside the repository lives."""

from __future__ import annotations

import os
from pathlib import Path

# src/tokenpilot/paths.py -> parents: tokenpilot pkg, src, tokenpilot dist, repository root.
REPO_ROOT = Path(__file__).resolve().parents[3]


def shared_dir() -> Path | None:
    """The ``shared`` folder that sits beside the repository root, or None when absent.

    ``TOKENPILOT_SHARED`` overrides it, for an installed (non-editable) package.
    """
    env = os.environ.get("TOKENPILOT_SHARED")
    candidates = [Path(env)] if env else []
    candidates.append(REPO_ROOT.parent / "shared")
    for c in candidates:
        if c.is_dir():
            return c
    return None
