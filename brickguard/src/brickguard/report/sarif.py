"""SARIF 2.1.0, the format code-scanning services (GitHub, GitLab, IDEs) read.

Paths inside the project root are written relative to ``%SRCROOT%`` so the log stays valid when
the checkout moves; ``partialFingerprints`` carry the line-independent fingerprint so a service
tracks a finding across commits the same way ``--baseline`` does.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from brickguard import __version__
from brickguard.findings import Location
from brickguard.report.fingerprint import FINGERPRINT_KEY
from brickguard.report.model import Item, Report, RuleInfo

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"


def _rule_name(title: str) -> str:
    """SARIF's ``name`` is an identifier-like label: "ISR write, task read" -> IsrWriteTaskRead."""
    words = re.findall(r"[A-Za-z0-9]+", title)
    return "".join(word[:1].upper() + word[1:].lower() for word in words)


def _help_markdown(rule: RuleInfo) -> str:
    """What code-scanning UIs show under "Show more": the fix, and the examples when known."""
    parts = [f"**Why this is bad.** {rule.rationale}", f"**Instead.** {rule.instead}"]
    for label, attr in (("Bad", "example_bad"), ("Good", "example_good")):
        example = getattr(rule, attr, "")
        if example:
            parts.append(f"{label}:\n\n```c\n{example.strip()}\n```")
    return "\n\n".join(parts)


def _descriptor(rule_id: str, rule: RuleInfo | None) -> dict[str, Any]:
    if rule is None:  # a finding from a rule the run did not describe (e.g. a front-end diagnostic)
        return {"id": rule_id, "shortDescription": {"text": rule_id}}
    return {
        "id": rule.id,
        "name": _rule_name(rule.title) or rule.id,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.rationale},
        "help": {"text": rule.instead, "markdown": _help_markdown(rule)},
        "defaultConfiguration": {"level": rule.level.value},
    }


def _physical(report: Report, location: Location) -> dict[str, Any]:
    rel = report.source.relpath(location.file)
    if rel is not None:
        artifact = {"uri": quote(rel), "uriBaseId": SRCROOT}
    else:
        artifact = {"uri": report.source.resolve(location.file).as_uri()}
    region: dict[str, Any] = {"startLine": max(location.line, 1)}
    if location.column >= 1:
        region["startColumn"] = location.column
    text = report.source.line(location.file, location.line)
    if text is not None:
        region["snippet"] = {"text": text}
    return {"artifactLocation": artifact, "region": region}


def _location(report: Report, location: Location, **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {**extra, "physicalLocation": _physical(report, location)}
    if location.message:
        data["message"] = {"text": location.message}
    return data


def _result(report: Report, item: Item, rule_index: int) -> dict[str, Any]:
    finding = item.finding
    result: dict[str, Any] = {
        "ruleId": finding.rule,
        "ruleIndex": rule_index,
        "level": finding.level.value,
        "message": {"text": finding.message},
        "locations": [_location(report, finding.location)],
        "partialFingerprints": {FINGERPRINT_KEY: item.fingerprint},
    }
    if finding.related:
        result["relatedLocations"] = [
            _location(report, loc, id=index) for index, loc in enumerate(finding.related)
        ]
    if finding.flow:
        steps = [{"location": _location(report, loc)} for loc in finding.flow]
        result["codeFlows"] = [{"threadFlows": [{"locations": steps}]}]
    if item.suppression is not None:
        suppression: dict[str, Any] = {"kind": "inSource", "status": "accepted"}
        if item.suppression.reason:
            suppression["justification"] = item.suppression.reason
        result["suppressions"] = [suppression]
    return result


def render_sarif(report: Report) -> dict[str, Any]:
    ids = report.rule_ids
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "brickguard",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": [_descriptor(rule_id, report.rule(rule_id)) for rule_id in ids],
            }
        },
        "originalUriBaseIds": {SRCROOT: {"uri": report.source.root.as_uri() + "/"}},
        "artifacts": [
            {"location": _physical(report, Location(file, 1))["artifactLocation"]}
            for file in report.files
        ],
        "results": [_result(report, item, ids.index(item.finding.rule)) for item in report.shown],
    }
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
