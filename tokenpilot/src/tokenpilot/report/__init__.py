"""Reports of fleet runs: terminal tables, the JSON scripts read, an HTML page with plots."""

from tokenpilot.report.html import check_report_dir, write_report
from tokenpilot.report.tables import compare_table, metrics_json, simulate_text

__all__ = ["check_report_dir", "compare_table", "metrics_json", "simulate_text", "write_report"]
