"""The JSON report: the format scripts read. Its schema is ``data/findings.schema.json``."""

from __future__ import annotations

from typing import Any

from brickguard import __version__
from brickguard.findings import Location
from brickguard.report.model import Item, Report

FORMAT_VERSION = 1  # bump when a field changes meaning or disappears; adding fields is fine


def _location(report: Report, location: Location) -> dict[str, Any]:
    return {
        "file": report.source.display(location.file),
        "line": location.line,
        "column": location.column,
        "message": location.message,
    }


def _finding(report: Report, item: Item) -> dict[str, Any]:
    finding = item.finding
    data: dict[str, Any] = {
        "rule": finding.rule,
        "level": finding.level.value,
        "message": finding.message,
        "file": report.source.display(finding.location.file),
        "line": finding.location.line,
        "column": finding.location.column,
        "related": [_location(report, loc) for loc in finding.related],
        "flow": [_location(report, loc) for loc in finding.flow],
        "fingerprint": item.fingerprint,
    }
    if item.suppression is not None:
        data["suppressed"] = {"reason": item.suppression.reason, "line": item.suppression.line}
    return data


def render_json(report: Report) -> dict[str, Any]:
    return {
        "version": FORMAT_VERSION,
        "tool": "brickguard",
        "tool_version": __version__,
        "files": [report.source.display(f) for f in report.files],
        "findings": [_finding(report, item) for item in report.shown],
        "summary": {
            "total": len(report.active),
            "by_level": report.counts(),
            "by_rule": report.by_rule(),
            "suppressed": report.suppressed,
            "baselined": report.baselined,
        },
    }
