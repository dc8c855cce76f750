"""Baselines: adopt brickguard on an old code base without fixing everything first.

``--write-baseline F`` records the fingerprints of today's findings; ``--baseline F`` hides those
and reports only what is new. Fingerprints ignore line numbers (see ``report.fingerprint``), so
adding lines above a known finding does not bring it back.
"""

from __future__ import annotations

import json
from pathlib import Path

from brickguard.errors import BrickguardError
from brickguard.report.model import Report

BASELINE_VERSION = 1


def write_baseline(path: Path, report: Report) -> int:
    """Write the fingerprints of the report's active findings to ``path``; return how many."""
    entries = [
        {
            "fingerprint": item.fingerprint,
            "rule": item.finding.rule,
            "file": report.source.display(item.finding.location.file),
            "message": item.finding.message,
        }
        for item in report.active
    ]
    # Sorted by what does not move with line numbers, so a rewritten baseline diffs cleanly.
    entries.sort(key=lambda e: (e["file"], e["rule"], e["message"], e["fingerprint"]))
    data = {"version": BASELINE_VERSION, "tool": "brickguard", "findings": entries}
    try:
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise BrickguardError(f"cannot write baseline {path}: {exc.strerror or exc}") from exc
    return len(entries)


def load_baseline(path: Path) -> frozenset[str]:
    """The fingerprints a baseline file lists. Raises BrickguardError if it is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise BrickguardError(
            f"baseline {path} does not exist; create it with --write-baseline {path}"
        ) from exc
    except OSError as exc:
        raise BrickguardError(f"cannot read baseline {path}: {exc.strerror or exc}") from exc
    except json.JSONDecodeError as exc:
        message = f"baseline {path} is not JSON: {exc.msg} (line {exc.lineno})"
        raise BrickguardError(message) from exc
    valid = (
        isinstance(data, dict)
        and data.get("tool") == "brickguard"
        and isinstance(data.get("findings"), list)
        and all(
            isinstance(e, dict) and isinstance(e.get("fingerprint"), str)
            for e in data["findings"]
        )
    )
    if not valid:
        raise BrickguardError(
            f"{path} is not a brickguard baseline (no \"tool\": \"brickguard\" with a list of "
            "\"findings\" that have a \"fingerprint\"); rewrite it with --write-baseline"
        )
    return frozenset(e["fingerprint"] for e in data["findings"])
