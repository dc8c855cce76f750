"""``brickguard sdk-index`` and ``brickguard eval-mutations``: the SDK index and its measurement."""

from __future__ import annotations

from pathlib import Path

import typer

from brickguard.errors import BrickguardError
from brickguard.output import FORMAT_OPTION, Format, emit, fail, log
from brickguard.sdk.cache import LoadInfo, default_cache_dir, load_index
from brickguard.sdk.evaluate import evaluate, render
from brickguard.sdk.mutate import KINDS
from brickguard.sdk.spec import resolve_sdk

_SDK_HELP = (
    "An SDK: a folder of headers (or its include/) or a TOML manifest (name, version, include)."
)


def sdk_index(
    sdk: Path = typer.Option(..., "--sdk", help=_SDK_HELP),
    name: str = typer.Option(None, "--name", help="The SDK's name (default: the folder's)."),
    version: str = typer.Option(None, "--version", help="The SDK's version."),
    cache: Path = typer.Option(None, "--cache", help="Cache folder (default: the user's)."),
    fmt: Format = FORMAT_OPTION,
) -> None:
    """Index an SDK's headers (cached by their hash) and print what was found."""
    try:
        spec = resolve_sdk(sdk, name, version)
        info: list[LoadInfo] = []
        index = load_index(spec, cache or default_cache_dir(), info=info)
    except BrickguardError as exc:
        raise fail(str(exc)) from exc
    log(f"{'cache hit' if info[0].hit else 'indexed'}: {info[0].path}")
    data = {"sdk": index.label, "counts": index.counts(), "errors": [list(e) for e in index.errors]}

    def text(d: dict) -> str:
        rows = [f"SDK {d['sdk']}"] + [f"  {k:<22}{v:>8}" for k, v in d["counts"].items()]
        rows += [f"  BG000 {f}:{ln}:{c}: {m}" for f, ln, c, m in d["errors"]]
        return "\n".join(rows)

    emit(data, fmt, text)


def eval_mutations(
    sdk: list[Path] = typer.Option(
        ..., "--sdk", help=_SDK_HELP + " Repeat; the first is the target."
    ),
    code: Path = typer.Option(..., "--code", help="Correct C code to mutate (a folder or a file)."),
    seed: int = typer.Option(1, "--seed", help="Seed of the mutation sampler."),
    per_kind: int = typer.Option(40, "--per-kind", min=1, help="Mutants per mutation kind."),
    kind: list[str] = typer.Option(None, "--kind", help=f"Only these kinds ({', '.join(KINDS)})."),
    cache: Path = typer.Option(None, "--cache", help="Cache folder (default: the user's)."),
    fmt: Format = FORMAT_OPTION,
) -> None:
    """Inject realistic SDK hallucinations into correct code and score the BG2xx rules."""
    kinds = tuple(kind) if kind else KINDS
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        raise fail(f"unknown mutation kind {bad[0]!r} (known: {', '.join(KINDS)})")
    try:
        specs = [resolve_sdk(p) for p in sdk]
        report = evaluate(specs, code, seed, per_kind, kinds, cache or default_cache_dir())
    except BrickguardError as exc:
        raise fail(str(exc)) from exc
    emit(report, fmt, render)
