"""Reading source lines for reports: the text under a caret, the line a fingerprint hashes.

Findings name files as the compiler saw them (relative to the working directory or absolute).
Reports must survive files that have since moved or vanished, so every lookup here is tolerant:
a missing file reads as no lines, never as an exception.
"""

from __future__ import annotations

from pathlib import Path


class SourceCache:
    """Lines of source files, read once, and paths made relative to the project root."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._lines: dict[Path, list[str]] = {}

    def resolve(self, file: str) -> Path:
        """The absolute path of ``file``: as given if it exists, else relative to the root."""
        path = Path(file)
        if path.is_absolute():
            return path
        if path.exists():
            return path.resolve()
        return (self.root / path).resolve()

    def relpath(self, file: str) -> str | None:
        """``file`` relative to the root, POSIX style; None when it lies outside the root."""
        try:
            return self.resolve(file).relative_to(self.root).as_posix()
        except ValueError:
            return None

    def display(self, file: str) -> str:
        """How reports name a file: relative to the root when inside it, else as given."""
        rel = self.relpath(file)
        return rel if rel is not None else file

    def line(self, file: str, number: int) -> str | None:
        """Line ``number`` (1-based) of ``file`` without its newline, or None if unavailable."""
        lines = self._read(self.resolve(file))
        if 1 <= number <= len(lines):
            return lines[number - 1]
        return None

    def _read(self, path: Path) -> list[str]:
        if path not in self._lines:
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            self._lines[path] = text.splitlines()
        return self._lines[path]
