"""The SDK rules' shared work: load the configured SDKs once per process, classify a program's
diagnostics once (``Program.sdk_findings``), and tell BG000 which diagnostics the SDK rules
already explain (``Program.claimed_diagnostics``)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from brickguard.facts import DiagnosticFact, UnitFacts
from brickguard.sdk.cache import default_cache_dir, load_index
from brickguard.sdk.classify import Diag, SdkContext, SdkFinding, classify
from brickguard.sdk.index import default_args
from brickguard.sdk.spec import SdkSpec

if TYPE_CHECKING:
    from brickguard.config import Config

SDK_RULES = ("BG201", "BG202", "BG203", "BG204", "BG205")  # the rules built on the SDK index


def context_for(config: Config) -> SdkContext | None:
    """The target SDK and the others from ``config.sdks``; None when no SDK is configured."""
    if not config.sdks:
        return None
    args = default_args(config.target, config.resource_dir)
    return _context(tuple(config.sdks), tuple(args), str(config.root))


@lru_cache(maxsize=16)
def _context(specs: tuple[SdkSpec, ...], args: tuple[str, ...], root: str) -> SdkContext:
    # Loading an index reads (or builds) its cache file: once per process per set of SDKs.
    folder = default_cache_dir(Path(root))
    indexes = [load_index(s, folder, list(args)) for s in specs]
    target = next((i for i in indexes if i.target), indexes[0])
    return SdkContext(target, [i for i in indexes if i is not target])


def _read(file: str) -> str | None:
    try:
        return Path(file).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _diags(unit: UnitFacts) -> list[Diag]:
    return [
        Diag(d.where.file, d.where.line, d.where.column, d.severity, d.message)
        for d in unit.diagnostics
    ]


def sdk_findings(units: Sequence[UnitFacts], config: Config) -> list[tuple[UnitFacts, SdkFinding]]:
    """Every SDK finding of every unit, with the unit whose diagnostics it claims."""
    if not any(config.rule_enabled(r) for r in SDK_RULES):
        return []  # no SDK rule selected: the index is not even loaded
    ctx = context_for(config)
    if ctx is None:
        return []
    project = frozenset(f.name for u in units for f in u.functions)
    ctx = SdkContext(ctx.target, ctx.others, project)
    # A unit that misses a header is not judged: any name it uses may be declared there, so an
    # "unknown" name is no evidence of a hallucinated API (BG002 says the check did not run).
    return [(unit, f) for unit in units if not misses_header(unit)
            for f in classify(_diags(unit), ctx, _read)]


def misses_header(unit: UnitFacts) -> bool:
    """A header the unit includes was not found (it was parsed on without it)."""
    return any(d.message.endswith("file not found") for d in unit.diagnostics)


def claimed_diagnostics(
    found: Sequence[tuple[UnitFacts, SdkFinding]], config: Config
) -> set[DiagnosticFact]:
    """The diagnostic facts an enabled SDK rule reports: BG000 leaves them out."""
    claimed = set()
    for unit, f in found:
        if config.rule_enabled(f.rule):
            for i in f.claimed:
                claimed.add(unit.diagnostics[i])
    return claimed
