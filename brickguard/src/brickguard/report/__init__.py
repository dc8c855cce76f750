"""Reports: findings after suppressions and the baseline, rendered as text, JSON or SARIF 2.1.0."""

from brickguard.report.fingerprint import fingerprints
from brickguard.report.json_format import render_json
from brickguard.report.model import Item, Report, RuleInfo, build_report, summary_line
from brickguard.report.sarif import render_sarif
from brickguard.report.source import SourceCache
from brickguard.report.text import render_text

__all__ = [
    "Item",
    "Report",
    "RuleInfo",
    "SourceCache",
    "build_report",
    "fingerprints",
    "render_json",
    "render_sarif",
    "render_text",
    "summary_line",
]
