"""Reports of fleet runs: terminal tables, the JSON scripts read, an HTML page with plots."""

from tokenpilot.report.html import write_report
from tokenpilot.report.tables import compare_table, metrics_json, simulate_text

__all__ = ["compare_table", "metrics_json", "simulate_text", "write_report"]
