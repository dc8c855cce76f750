"""Where the shared data (traces, fidelity tables) lives: the ``shared`` folder beside the repo."""

from __future__ import annotations

from pathlib import Path


def shared_dir() -> Path | None:
    """The ``shared`` folder beside the repository root, or None when it is absent."""
    try:  # the project-wide helper, when it exists
        from tokenpilot.paths import shared_dir as project_shared_dir
    except ImportError:
        project_shared_dir = None
    if project_shared_dir is not None:
        return project_shared_dir()
    # src/tokenpilot/workload/_shared.py -> parents[4] is the repository root.
    candidate = Path(__file__).resolve().parents[4].parent / "shared"
    return candidate if candidate.is_dir() else None


def traces_dir() -> Path | None:
    """``shared/traces``, or None when it is absent."""
    root = shared_dir()
    if root is None:
        return None
    path = root / "traces"
    return path if path.is_dir() else None
