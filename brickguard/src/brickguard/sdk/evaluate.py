"""Measure the SDK rules on injected hallucinations: recall, precision, suggestion accuracy.

Each mutant holds one mutation on one line. A finding of an SDK rule (BG2xx) on that line is a
true positive; any other SDK finding in the mutant, or in the unmutated original, is a false one.
Suggestion accuracy counts the unknown-name findings whose first (or first three) suggestions
name the symbol the mutation replaced.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import clang.cindex as ci

from brickguard.errors import BrickguardError
from brickguard.sdk.cache import load_index
from brickguard.sdk.check import check_source
from brickguard.sdk.classify import SdkContext
from brickguard.sdk.index import default_args
from brickguard.sdk.mutate import KINDS, NAME_KINDS, Mutant, make_mutants
from brickguard.sdk.spec import SdkSpec, pick_target


@dataclass
class KindScore:
    kind: str
    mutants: int = 0
    detected: int = 0  # a BG2xx finding on the mutated line
    right_rule: int = 0  # ... of the rule the kind should raise
    findings: int = 0  # every BG2xx finding in these mutants
    true_findings: int = 0
    suggested: int = 0  # detected name mutations with a suggestion list
    top1: int = 0
    top3: int = 0
    misses: list[str] = field(default_factory=list)  # a few, for the reader

    @property
    def recall(self) -> float:
        return self.detected / self.mutants if self.mutants else 0.0

    @property
    def precision(self) -> float:
        return self.true_findings / self.findings if self.findings else 1.0

    def to_dict(self) -> dict:
        d = asdict(self)
        d.update(recall=round(self.recall, 4), precision=round(self.precision, 4))
        d["top1_rate"] = round(self.top1 / self.suggested, 4) if self.suggested else None
        d["top3_rate"] = round(self.top3 / self.suggested, 4) if self.suggested else None
        return d


def evaluate(
    specs: Sequence[SdkSpec],
    code: Path,
    seed: int = 1,
    per_kind: int = 40,
    kinds: Sequence[str] = KINDS,
    cache_dir: Path | None = None,
    args: Sequence[str] | None = None,
) -> dict:
    """Mutate the C files under ``code`` against the target (first or marked) SDK and score."""
    specs = pick_target(list(specs))
    if not specs:
        raise BrickguardError("eval-mutations needs at least one --sdk")
    code = Path(code)
    files = sorted(code.rglob("*.c")) if code.is_dir() else [code]
    if not code.exists() or not files:
        raise BrickguardError(f"no C files (*.c) under {code}")
    args = list(args) if args is not None else default_args()
    target_spec = next(s for s in specs if s.target)
    indexes = [load_index(s, cache_dir, args) for s in specs]
    target = next(i for i in indexes if i.target)
    ctx = SdkContext(target, [i for i in indexes if i is not target])
    rng = random.Random(seed)
    clang_index = ci.Index.create()
    full_args = [*args, *(f"-I{p}" for p in target_spec.include)]

    baseline_fp = 0
    pool: dict[str, list[Mutant]] = {k: [] for k in kinds}
    for f in files:
        path = str(f.resolve())
        text = f.read_text(encoding="utf-8")
        baseline_fp += len(check_source(path, ctx, target_spec, args, text, clang_index))
        tu = clang_index.parse(path, args=full_args)
        for m in make_mutants(path, text, tu, target, ctx.others, kinds, rng):
            pool[m.kind].append(m)

    scores = {k: KindScore(k) for k in kinds}
    for kind, mutants in pool.items():
        chosen = rng.sample(mutants, min(per_kind, len(mutants)))
        s = scores[kind]
        for m in chosen:
            _score(m, check_source(m.file, ctx, target_spec, args, m.text, clang_index), s)
    total = KindScore("all")
    for s in scores.values():
        for name in ("mutants", "detected", "right_rule", "findings", "true_findings",
                     "suggested", "top1", "top3"):
            setattr(total, name, getattr(total, name) + getattr(s, name))
    total.findings += baseline_fp
    return {
        "target": target.label,
        "others": [o.label for o in ctx.others],
        "files": len(files),
        "seed": seed,
        "baseline_false_positives": baseline_fp,
        "kinds": [scores[k].to_dict() for k in kinds],
        "all": total.to_dict(),
    }


def _score(m: Mutant, findings: list, s: KindScore) -> None:
    s.mutants += 1
    s.findings += len(findings)
    hits = [f for f in findings if f.line == m.line and Path(f.file).resolve() == Path(m.file)]
    s.true_findings += len(hits)
    if not hits:
        if len(s.misses) < 5:
            s.misses.append(f"{Path(m.file).name}:{m.line} {m.original} -> {m.mutated}")
        return
    s.detected += 1
    if any(f.rule == m.expect for f in hits):
        s.right_rule += 1
    if m.kind in NAME_KINDS:
        named = [f for f in hits if f.rule in ("BG201", "BG203", "BG204")]
        if named:
            s.suggested += 1
            sugg = named[0].suggestions
            s.top1 += bool(sugg) and sugg[0] == m.original
            s.top3 += m.original in sugg[:3]


def render(report: dict) -> str:
    lines = [
        f"target SDK {report['target']}"
        + (f" (also loaded: {', '.join(report['others'])})" if report["others"] else "")
        + f"; {report['files']} files; seed {report['seed']}; "
        f"false positives on the unmutated code: {report['baseline_false_positives']}",
        f"{'kind':<18}{'mutants':>8}{'recall':>8}{'precision':>10}{'rule ok':>9}{'top-1':>8}"
        f"{'top-3':>8}",
    ]
    for row in [*report["kinds"], report["all"]]:
        def pct(v):
            return "-" if v is None else f"{100 * v:.1f}%"
        rule_ok = row["right_rule"] / row["detected"] if row["detected"] else None
        lines.append(
            f"{row['kind']:<18}{row['mutants']:>8}{pct(row['recall']):>8}"
            f"{pct(row['precision']):>10}{pct(rule_ok):>9}{pct(row['top1_rate']):>8}"
            f"{pct(row['top3_rate']):>8}"
        )
    for row in report["kinds"]:
        for miss in row["misses"]:
            lines.append(f"  missed ({row['kind']}): {miss}")
    return "\n".join(lines)
