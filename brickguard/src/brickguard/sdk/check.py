"""Parse one C file against the target SDK and classify its diagnostics (used by the mutation
evaluation and by tests; ``brickguard check`` goes through the front end and ``analyze``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import clang.cindex as ci

from brickguard.sdk.classify import Diag, SdkContext, SdkFinding, classify
from brickguard.sdk.spec import SdkSpec

_SEVERITY = {
    ci.Diagnostic.Warning: "warning",
    ci.Diagnostic.Error: "error",
    ci.Diagnostic.Fatal: "fatal",
}


def parse_diagnostics(
    path: str, text: str | None, include: Sequence[Path], args: Sequence[str],
    index: ci.Index | None = None,
) -> list[Diag]:
    """clang's warnings and errors for ``path`` (its ``text`` when given instead of the file)."""
    index = index or ci.Index.create()
    full = [*args, *(f"-I{p}" for p in include)]
    unsaved = [(path, text)] if text is not None else None
    tu = index.parse(path, args=full, unsaved_files=unsaved)
    out = []
    for d in tu.diagnostics:
        if d.severity not in _SEVERITY or d.location.file is None:
            continue
        loc = d.location
        out.append(Diag(loc.file.name, loc.line, loc.column, _SEVERITY[d.severity], d.spelling))
    return out


def check_source(
    path: str, ctx: SdkContext, target: SdkSpec, args: Sequence[str], text: str | None = None,
    index: ci.Index | None = None,
) -> list[SdkFinding]:
    diags = parse_diagnostics(path, text, target.include, args, index)

    def read(file: str) -> str | None:
        if text is not None and Path(file).resolve() == Path(path).resolve():
            return text
        try:
            return Path(file).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None

    return classify(diags, ctx, read)
