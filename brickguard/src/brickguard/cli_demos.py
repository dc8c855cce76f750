"""``brickguard demos index``: mine usage protocols from vendor example projects (BG4xx)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import typer

from brickguard.output import FORMAT_OPTION, Format, emit, fail, log

app = typer.Typer(name="demos", help="Vendor example projects: the protocols BG4xx checks.",
                  no_args_is_help=True)


@app.command("index")
def index(
    folders: list[Path] = typer.Argument(..., metavar="DIR", help="Folders of example projects."),
    out: Path = typer.Option(None, "--out", "-o", help="Write the index (DEMOS.json) here."),
    min_support: int = typer.Option(3, "--min-support", min=2,
                                    help="Examples that must agree before a rule is kept."),
    search: list[Path] = typer.Option(
        None, "--search", help="Another folder holding the SDK's headers (repeat)."),
    cache: Path = typer.Option(None, "--cache", help="Cache folder (default: the user's)."),
    jobs: int = typer.Option(0, "--jobs", "-j", min=0, help="Parser processes (0: one per CPU)."),
    fmt: Format = FORMAT_OPTION,
) -> None:
    """Mine the example projects under DIR... (cached by their contents) and print the rules."""
    from brickguard.demos.index import default_cache_dir, load_index, save

    start = time.perf_counter()
    info: list[tuple[Path, bool]] = []
    try:
        idx = load_index(folders, min_support, cache or default_cache_dir(), jobs, info,
                         search or [])
    except OSError as exc:
        raise fail(f"cannot index the demos: {exc}") from exc
    took = time.perf_counter() - start
    for line in idx.notes:
        log(f"note: {line}")
    log(f"{'cache hit' if info[0][1] else 'indexed'} in {took:.2f} s: {info[0][0]}")
    if out is not None:
        save(idx, out)
        if not out.is_file():
            raise fail(f"cannot write {out}")
        log(f"wrote {out}")
    data = {"counts": idx.counts(), "notes": idx.notes,
            "rules": [{"rule": r.rule, "api": r.api, "step": r.step, "order": r.order,
                       "support": f"{r.support}/{r.of}", "see": r.sites[0].short()}
                      for r in idx.rules]}

    def text(d: dict) -> str:
        rows = ["  ".join(f"{k} {v}" for k, v in d["counts"].items())]
        rows += [f"  {r['rule']} {r['api']:<28} {r['order']:<7} {r['step']:<44} {r['support']:>5}"
                 f"  {r['see']}" for r in d["rules"]]
        return "\n".join(rows)

    emit(json.loads(json.dumps(data)), fmt, text)
