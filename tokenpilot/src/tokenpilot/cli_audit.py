"""``tokenpilot audit``: where an agent's tokens go, and what sending fewer would save."""

from __future__ import annotations

from pathlib import Path

import typer

from tokenpilot.output import FORMAT_OPTION, Format, emit, fail, log


def audit(
    logs: list[Path] = typer.Argument(..., help="Gateway request logs (log.requests), JSONL "
                                      "of OpenAI request bodies, or JSON transcripts."),
    model: str = typer.Option(None, "--model", help="Price every request as this model "
                              "(default: each record's model)."),
    gpu: str = typer.Option("h100-sxm", "--gpu", help="Accelerator to price on."),
    tp: int = typer.Option(1, "--tp", help="Tensor-parallel degree."),
    batch: int = typer.Option(1, "--batch", help="Sequences decoding together (as in cost)."),
    engine: str = typer.Option("vllm-v1", "--engine", help="Engine profile (as in cost)."),
    tokenizer: Path = typer.Option(None, "--tokenizer", help="A tokenizer.json or .gguf file "
                                   "for exact counts (else ~4 chars/token)."),
    report: Path = typer.Option(None, "--report", help="Write an HTML report (index.html, "
                                "plots, audit.json) into this folder."),
    cache_block: int = typer.Option(16, "--cache-block", help="Prefix-cache block, tokens."),
    oversize: int = typer.Option(2000, "--oversize", help="Documents and tool results over "
                                 "this many tokens are oversized."),
    top_k: int = typer.Option(4, "--top-k", help="Oversized: chunks sent of each input."),
    chunk: int = typer.Option(512, "--chunk-tokens", help="Oversized: tokens per chunk."),
    summary: int = typer.Option(256, "--summary-tokens", help="Oversized: summary length."),
    history_turns: int = typer.Option(8, "--history-turns", help="What-if: turns of history "
                                      "kept."),
    doc_cap: int = typer.Option(1000, "--doc-cap", help="What-if: tokens kept of a document."),
    fmt: Format = FORMAT_OPTION,
) -> None:
    """Tokens and cost by prompt part, prefill vs decode, repetition and prefix-cache breaks,
    oversized inputs and what-ifs, over a whole agent run or a day of gateway traffic."""
    from tokenpilot.audit.analyze import Options, Pricer, analyze
    from tokenpilot.audit.read import Counter, Reader
    from tokenpilot.audit.report import build, render_text
    from tokenpilot.hardware import UnknownGPUError, get_gpu
    from tokenpilot.models import UnknownModelError, get_model

    for name, value in (("--tp", tp), ("--batch", batch), ("--cache-block", cache_block),
                        ("--oversize", oversize), ("--top-k", top_k), ("--chunk-tokens", chunk),
                        ("--summary-tokens", summary), ("--doc-cap", doc_cap)):
        if value <= 0:
            raise fail(f"{name} must be a positive integer, got {value}")
    if history_turns < 0:
        raise fail(f"--history-turns must be 0 or more, got {history_turns}")
    from tokenpilot.engines import get_engine

    try:
        card = get_gpu(gpu)
        get_engine(engine)
        if model is not None:
            get_model(model)
    except (UnknownModelError, UnknownGPUError, ValueError) as e:
        raise fail(str(e).strip("'\"")) from e
    if report is not None:
        from tokenpilot.report import check_report_dir

        why = check_report_dir(report)
        if why:
            raise fail(why)
    if tokenizer is None and model and model.lower().startswith("smollm2"):
        from tokenpilot.tokenize_gguf import smollm2_path

        tokenizer = smollm2_path()
    if tokenizer is not None and not tokenizer.is_file():
        raise fail(f"tokenizer file {tokenizer} does not exist")
    try:
        counter = Counter(tokenizer)
    except Exception as e:  # the tokenizers library raises a bare Exception on a bad file
        raise fail(f"cannot load tokenizer {tokenizer}: {e}") from e
    reader = Reader(counter)
    for path in logs:
        if not path.exists():
            reader.problem("missing", f"{path}: no such file; skipped")
            continue
        reader.read(path)
    if not reader.calls:
        for p in reader.problems:
            log(p)
        raise fail("nothing to audit: no request could be read from "
                   + ", ".join(map(str, logs)))
    from tokenpilot.cli_cost import make_cost_model

    def cost_model(name: str):  # noqa: ANN202 - a CostModel
        if not (model or name):
            raise ValueError("no model named")
        return make_cost_model(get_model(model or name), card, tp, engine=engine)

    opt = Options(batch, cache_block, oversize, top_k, chunk, summary, history_turns, doc_cap)
    pricer = Pricer(cost_model, batch, reader.problem)
    rows = analyze(reader.calls, pricer, counter, opt)
    counted = sum(1 for c in reader.calls if c.counted)
    by_backend = len(reader.calls) - counted
    how = [f"{by_backend:,} request(s) as their backend counted" if by_backend else "",
           f"{counted:,} counted here by {counter.source}" if counted else ""]
    meta = {"inputs": [str(p) for p in logs], "model": model, "gpu": card.name, "tp": tp,
            "engine": engine, "exact": counter.exact or counted == 0,
            "token_counts": "; ".join(h for h in how if h),
            "problems": reader.problems, "skipped": reader.skipped}
    doc = build(rows, pricer, opt, meta)
    for p in reader.problems:
        log(p)
    if report is not None:
        from tokenpilot.audit.html import write_audit_report

        log(f"wrote {write_audit_report(report, doc, rows)}")
    emit(doc, fmt, render_text)
