"""Path globs as users write them in ``[build] exclude``: ``Drivers/**``, ``**/*_template.c``.

A pattern is matched against the file's path relative to the configuration's folder (``/``
separated). ``*`` and ``?`` stay within one folder name, ``**`` spans any number of folders, a
pattern with no ``/`` matches the file name in any folder, and ``dir/**`` everything under dir.
Files outside the root are matched by their absolute path, so ``**/...`` patterns still apply.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path


def _regex(pattern: str) -> str:
    pattern = pattern.strip().replace("\\", "/").removeprefix("./")
    if "/" not in pattern.rstrip("/"):
        pattern = "**/" + pattern
    if pattern.endswith("/"):
        pattern += "**"
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)


class Globs:
    """A set of patterns; ``match(path)`` says whether any covers the file."""

    def __init__(self, patterns: Iterable[str], root: Path) -> None:
        self.patterns = [p for p in patterns if p.strip()]
        self.root = os.path.realpath(root)
        self._re = re.compile("|".join(f"(?:{_regex(p)})" for p in self.patterns)) \
            if self.patterns else None

    def __bool__(self) -> bool:
        return self._re is not None

    def match(self, path: str | Path) -> bool:
        if self._re is None:
            return False
        real = os.path.realpath(path)
        rel = os.path.relpath(real, self.root) if real.startswith(self.root + os.sep) else None
        candidates = [rel] if rel is not None else []
        candidates.append(real.lstrip("/"))
        return any(self._re.fullmatch(c.replace(os.sep, "/")) for c in candidates)
