"""The SDK rules' shared work: load the configured SDKs once, classify every unit's diagnostics
once, and tell the front end's BG000 which diagnostics the SDK rules already explain."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from brickguard.sdk.cache import default_cache_dir, load_index
from brickguard.sdk.classify import Diag, SdkContext, SdkFinding, classify
from brickguard.sdk.index import default_args
from brickguard.sdk.spec import SdkSpec

SDK_RULES = ("BG201", "BG202", "BG203", "BG204", "BG205")
_contexts: dict[tuple, SdkContext] = {}
_last: tuple[int, list[SdkFinding]] | None = None


def context_for(config: Any) -> SdkContext | None:
    """The target SDK and the others from ``config.sdks``; None when no SDK is configured."""
    specs: Sequence[SdkSpec] = getattr(config, "sdks", None) or ()
    if not specs:
        return None
    args = default_args(config.target, getattr(config, "resource_dir", None))
    key = (tuple(specs), tuple(args), str(config.root))
    if key not in _contexts:
        folder = default_cache_dir(Path(config.root))
        indexes = [load_index(s, folder, args) for s in specs]
        target = next((i for i in indexes if i.target), indexes[0])
        others = [i for i in indexes if i is not target]
        _contexts[key] = SdkContext(target, others)
    return _contexts[key]


def _read(file: str) -> str | None:
    try:
        return Path(file).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _diags(unit: Any) -> list[Diag]:
    return [
        Diag(d.where.file, d.where.line, d.where.column, d.severity, d.message)
        for d in unit.diagnostics
    ]


def unit_findings(units: Sequence[Any], config: Any) -> list[tuple[Any, SdkFinding]]:
    """Every SDK finding of every unit, with the unit's diagnostic facts it claims."""
    global _last
    ctx = context_for(config)
    if ctx is None:
        return []
    key = id(units)
    if _last is not None and _last[0] == key:
        return _last[1]  # five rules ask for the same work on the same program
    project = frozenset(f.name for u in units for f in u.functions)
    ctx = SdkContext(ctx.target, ctx.others, project)
    out = []
    for unit in units:
        for f in classify(_diags(unit), ctx, _read):
            out.append((unit, f))
    _last = (key, out)
    return out


def findings_for(rule_id: str, units: Sequence[Any], config: Any) -> Iterable:
    for _, f in unit_findings(units, config):
        if f.rule == rule_id:
            yield f.to_finding()


def claimed_diagnostics(units: Sequence[Any], config: Any) -> set[Any]:
    """The diagnostic facts an enabled SDK rule reports: BG000 leaves them out."""
    claimed = set()
    for unit, f in unit_findings(units, config):
        if config.rule_enabled(f.rule):
            for i in f.claimed:
                claimed.add(unit.diagnostics[i])
    return claimed
