"""The terminal report, in the compiler's shape so editors and people parse it alike.

    src/main.c:42:5: BG101 [warning] 'rx_count' is written in an interrupt and read here ...
       42 |     if (rx_count > 0) {
          |         ^
        src/isr.c:17:9: note: written in I2C1_EV_IRQHandler (interrupt)
"""

from __future__ import annotations

from brickguard.findings import Location
from brickguard.report.model import Item, Report, summary_line


def _position(report: Report, location: Location) -> str:
    return f"{report.source.display(location.file)}:{location.line}:{location.column}"


def _snippet(report: Report, location: Location) -> list[str]:
    text = report.source.line(location.file, location.line)
    if text is None:
        return []
    gutter = str(location.line).rjust(5)
    # Keep tabs in the caret's indent so the caret lines up however the terminal expands them.
    prefix = text[: max(location.column - 1, 0)]
    indent = "".join(ch if ch == "\t" else " " for ch in prefix)
    return [f"{gutter} | {text}", f"{' ' * len(gutter)} | {indent}^"]


def _retold(finding) -> bool:
    steps = {(s.file, s.line, s.column, s.message) for s in finding.flow}
    return all((r.file, r.line, r.column, r.message) in steps for r in finding.related)


def render_item(report: Report, item: Item) -> str:
    finding = item.finding
    head = f"{_position(report, finding.location)}: {finding.rule} [{finding.level}] "
    head += finding.message
    if item.suppression is not None:
        reason = item.suppression.reason or "no reason given"
        head += f" [suppressed: {reason}]"
    lines = [head, *_snippet(report, finding.location)]
    # A flow usually retells the related locations in order; in text, one telling is enough.
    if finding.related and not _retold(finding):
        for related in finding.related:
            lines.append(f"    {_position(report, related)}: note: {related.message}".rstrip())
    for step, location in enumerate(finding.flow, start=1):
        lines.append(f"    {_position(report, location)}: step {step}: {location.message}".rstrip())
    return "\n".join(lines)


def render_text(report: Report, *, with_summary: bool = False) -> str:
    """Every shown finding, blank-line separated; the summary last when asked for."""
    blocks = [render_item(report, item) for item in report.shown]
    if with_summary:
        blocks.append(summary_line(report))
    return "\n\n".join(blocks) + ("\n" if blocks else "")
