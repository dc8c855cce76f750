"""``tokenpilot cost`` and ``tokenpilot calibrate``: the cost model on the command line."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import typer

from tokenpilot.costmodel import DTYPE_BYTES, CostModel, DoesNotFitError, estimate_request
from tokenpilot.fidelity import FidelityReport, fidelity_report
from tokenpilot.hardware import GiB, GPUSpec, UnknownGPUError, get_gpu
from tokenpilot.models import ModelSpec, UnknownModelError, get_model
from tokenpilot.output import FORMAT_OPTION, Format, emit, fail, log

CHARS_PER_TOKEN = 4  # the usual rule of thumb for English text with BPE tokenizers


def count_prompt_tokens(
    path: Path, tokenizer: Path | None, model: str = ""
) -> tuple[int, str]:
    """Tokens in a prompt file: exact with a local tokenizer (a tokenizer.json or a GGUF file,
    or SmolLM2's GGUF when that model is asked for and installed), else estimated."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise fail(f"cannot read prompt file {path}: {e.strerror}") from e
    if not text.strip():
        raise fail(f"prompt file {path} is empty: a request needs at least one prompt token")
    if tokenizer is None and model.lower().startswith("smollm2"):
        from tokenpilot.tokenize_gguf import smollm2_path

        tokenizer = smollm2_path()
    if tokenizer is not None:
        counted = _count_with(tokenizer, text)
        if counted is not None:
            if counted <= 0:
                raise fail(f"{tokenizer.name} finds no tokens in prompt file {path}")
            return counted, f"counted with {tokenizer.name}"
    return max(1, round(len(text) / CHARS_PER_TOKEN)), f"estimated (~{CHARS_PER_TOKEN} chars/token)"


def _count_with(tokenizer: Path, text: str) -> int | None:
    """Exact count with a local tokenizer; None (after saying why) when it cannot be used."""
    if not tokenizer.is_file():
        raise fail(f"tokenizer file {tokenizer} does not exist")
    if tokenizer.suffix == ".gguf":
        from tokenpilot.tokenize_gguf import GGUFTokenizer, UnsupportedTokenizer

        try:
            return GGUFTokenizer(tokenizer).count(text)
        except (UnsupportedTokenizer, OSError, ValueError) as e:
            raise fail(f"cannot read the tokenizer in {tokenizer}: {e}") from e
    if importlib.util.find_spec("tokenizers") is None:
        log("the 'tokenizers' package is not installed: prompt tokens are estimated")
        return None
    from tokenizers import Tokenizer

    try:
        tok = Tokenizer.from_file(str(tokenizer))
    except Exception as e:  # the library raises a bare Exception on a bad file
        raise fail(f"cannot load tokenizer {tokenizer}: {e}") from e
    return len(tok.encode(text).ids)


def make_cost_model(spec: ModelSpec, card: GPUSpec, tp: int = 1, weight_dtype: str = "bf16",
                    kv_dtype: str = "bf16", mem_util: float | None = None,
                    calibration: Path | None = None, engine: str = "vllm-v1") -> CostModel:
    """The cost model ``cost`` (and ``audit``) prices with: the GPU family's calibration with
    the engine profile's CPU overheads, or a fitted profile; ``mem_util`` None: the engine's
    ``gpu_memory_utilization``. Raises ``UnknownEngineError``, ``ProfileError`` or
    ``DoesNotFitError``."""
    from tokenpilot.engines import get_engine, with_engine_overheads

    profile_of_engine = get_engine(engine)
    if mem_util is None:
        mem_util = profile_of_engine.gpu_memory_utilization
    if calibration is not None:
        from tokenpilot.calibrate.profile import load_profile

        profile = load_profile(calibration)
        if profile.gpu and profile.gpu != card.name:
            log(f"warning: {calibration} was fitted on {profile.gpu}, not {card.name}")
        cal = profile.calibration
    else:
        from tokenpilot.costmodel import calibration_for

        cal = with_engine_overheads(profile_of_engine, calibration_for(card.family))
    return CostModel(spec, card, tp, weight_dtype, kv_dtype, mem_util, calibration=cal)


def _render_cost(d: dict) -> str:
    usd = d["usd_per_request"]
    price = (
        f"${usd:.6f} per request, ${d['usd_per_million_tokens']:.3f} per million tokens "
        f"(instance ${d['price_per_hour']:.2f}/h)"
        if usd is not None
        else "no public price for this GPU"
    )
    fits = "" if d["batch_fits_kv"] else "  (batch does NOT fit in the KV pool at this context)"
    return "\n".join([
        f"{d['model']} on {d['tp']} x {d['gpu']}  weights {d['weight_dtype']}, KV {d['kv_dtype']}",
        f"prompt {d['prompt_tokens']} tokens ({d['prompt_tokens_source']}), "
        f"output {d['output_tokens']}, batch {d['batch']}",
        f"prefill           {d['prefill_s'] * 1e3:10.1f} ms   {d['prefill_bound']}-bound",
        f"TTFT (empty queue){d['ttft_s'] * 1e3:10.1f} ms",
        f"time per token    {d['tpot_s'] * 1e3:10.2f} ms   {d['decode_bound']}-bound "
        f"at batch {d['batch']}",
        f"total             {d['total_s']:10.3f} s",
        f"KV                {d['kv_bytes'] / 2**20:10.1f} MiB  "
        f"{d['kv_pool_share'] * 100:.2f}% of a {d['kv_capacity_tokens']}-token pool; "
        f"{d['max_concurrent_at_context']} such requests fit{fits}",
        f"cost              {price}",
    ])


def cost(
    model: str = typer.Option(..., "--model", help="Catalog name or path/to/config.json."),
    gpu: str = typer.Option(..., "--gpu", help="Accelerator name, e.g. h100-sxm."),
    tp: int = typer.Option(1, "--tp", help="Tensor-parallel degree."),
    prompt_tokens: int = typer.Option(None, "--prompt-tokens", help="Prompt length in tokens."),
    output_tokens: int = typer.Option(..., "--output-tokens", help="Tokens to generate."),
    batch: int = typer.Option(1, "--batch", help="Sequences decoding together."),
    kv_dtype: str = typer.Option("bf16", "--kv-dtype", help="bf16, fp16, fp8, int8 or int4."),
    weight_dtype: str = typer.Option("bf16", "--weight-dtype", help="bf16, fp8, int8 or int4."),
    prompt_file: Path = typer.Option(None, "--prompt-file", help="Count the prompt from a file."),
    tokenizer: Path = typer.Option(
        None, "--tokenizer", help="A tokenizer.json or .gguf file for exact counts."
    ),
    mem_util: float = typer.Option(None, "--mem-util", help="Fraction of GPU memory to use "
                                   "(default: the engine profile's gpu_memory_utilization: vLLM "
                                   "0.9, SGLang 0.88)."),
    calibration: Path = typer.Option(None, "--calibration", help="A profile from `tokenpilot "
                                     "calibrate --fit` (default: the GPU family's)."),
    engine: str = typer.Option("vllm-v1", "--engine", help="Engine profile (vllm-v1, vllm-v0, "
                               "sglang, llama.cpp): its CPU overheads join the GPU family's "
                               "calibration (a --calibration profile holds them already)."),
    fmt: Format = FORMAT_OPTION,
) -> None:
    """What one request costs: prefill, TTFT, time per token, KV footprint, $ per request."""
    for name, value in (("--tp", tp), ("--output-tokens", output_tokens), ("--batch", batch)):
        if value <= 0:
            raise fail(f"{name} must be a positive integer, got {value}")
    for name, dt in (("--kv-dtype", kv_dtype), ("--weight-dtype", weight_dtype)):
        if dt not in DTYPE_BYTES:
            raise fail(f"{name} {dt!r} is unknown; choose one of {', '.join(DTYPE_BYTES)}")
    if prompt_file is not None:
        prompt_tokens, source = count_prompt_tokens(prompt_file, tokenizer, model)
    elif prompt_tokens is None:
        raise fail("give --prompt-tokens N or --prompt-file F")
    elif prompt_tokens <= 0:
        raise fail(f"--prompt-tokens must be a positive integer, got {prompt_tokens}")
    else:
        source = "given"
    try:
        spec, card = get_model(model), get_gpu(gpu)
    except (UnknownModelError, UnknownGPUError, ValueError) as e:
        raise fail(str(e)) from e
    from tokenpilot.calibrate.profile import ProfileError
    from tokenpilot.engines import UnknownEngineError

    if mem_util is not None and not 0 < mem_util <= 1:
        raise fail(f"--mem-util must be in (0, 1], got {mem_util}")
    try:
        cm = make_cost_model(spec, card, tp, weight_dtype, kv_dtype, mem_util, calibration,
                             engine)
    except (UnknownEngineError, ProfileError) as e:
        raise fail(str(e)) from e
    except DoesNotFitError as e:
        raise fail(str(e), code=1) from e
    if spec.heads % tp:
        divisors = [d for d in range(1, spec.heads + 1) if spec.heads % d == 0]
        raise fail(f"--tp {tp} does not divide {spec.name}'s {spec.heads} attention heads; "
                   f"choose one of {', '.join(map(str, divisors))}")
    if spec.max_context and prompt_tokens + output_tokens > spec.max_context:
        raise fail(f"prompt {prompt_tokens} + output {output_tokens} = "
                   f"{prompt_tokens + output_tokens} tokens exceed {spec.name}'s context of "
                   f"{spec.max_context}")
    if prompt_tokens + output_tokens > cm.kv_capacity_tokens:
        raise fail(f"prompt {prompt_tokens} + output {output_tokens} tokens need more KV than "
                   f"the {cm.kv_capacity_tokens}-token pool of {tp} x {card.name} holds; "
                   "try a larger --tp, a smaller --kv-dtype or a bigger GPU", code=1)
    rc = estimate_request(cm, prompt_tokens, output_tokens, batch)
    data = {"model": spec.name, "gpu": card.name, "tp": tp, "engine": engine,
            "weight_dtype": weight_dtype,
            "kv_dtype": kv_dtype, "prompt_tokens_source": source,
            "weights_gib_per_gpu": cm.weight_bytes_per_gpu / GiB, **rc.to_dict()}
    emit(data, fmt, _render_cost)


def _render_report(rep: FidelityReport) -> str:
    lines = [f"{'id':<28} {'metric':<18} {'measured':>10} {'predicted':>10} {'error':>8}  "
             "condition"]
    for r in rep.rows:
        pred = f"{r.predicted:10.2f}" if r.predicted is not None else f"{'-':>10}"
        err = f"{r.error_pct:+7.1f}%" if r.error_pct is not None else f"{'-':>8}"
        note = f"  [{r.note}]" if r.note else ""
        lines.append(f"{r.id:<28} {r.metric + ' ' + r.unit:<18} {r.measured:10.2f} {pred} {err}  "
                     f"{r.condition}{note}")
    lines.append("")
    lines.append("every accuracy figure the project knows (mean |error| over n measurements; "
                 "llama.cpp: signed error of one run), with its data source:")
    for f in rep.figures:
        signed = "+" if f.name.startswith("llama.cpp") else ""
        err = f"{'-':>7}" if f.error_pct is None else f"{f.error_pct:{signed}6.1f}%"
        target = "" if f.target_pct is None else f"  target {f.target_pct:.0f}%: " + (
            "-" if f.error_pct is None else "met" if abs(f.error_pct) <= f.target_pct
            else "MISSED")
        lines.append(f"  {f.name:<52} {err} n={f.n:<4}{target}")
        lines.append(f"      source: {f.source}" + (f"; {f.note}" if f.note else ""))
    return "\n".join(lines)


def calibrate(
    report: bool = typer.Option(False, "--report", help="Compare predictions with measurements."),
    fit: list[Path] = typer.Option(None, "--fit", help="Fit a profile to this per-request log "
                                   "(CSV or JSONL; repeat for several)."),
    fleet: str = typer.Option(None, "--fleet", help="With --fit: the fleet file of the one "
                              "instance kind the logs came from."),
    out: Path = typer.Option(None, "--out", help="With --fit or --fit-phases: the profile YAML "
                             "to write."),
    fit_phases: Path = typer.Option(None, "--fit-phases", help="Fit a profile to per-phase "
                                    "timings (CSV: prompt_size, batch_size, prompt_time, "
                                    "token_time in ms; the Splitwise layout)."),
    gpu: str = typer.Option(None, "--gpu", help="With --fit-phases: the GPU the timings are of."),
    model: str = typer.Option(None, "--model", help="With --fit-phases: the model timed."),
    tp: list[int] = typer.Option(None, "--tp", help="With --fit-phases: the tensor-parallel "
                                 "degree of the rows (repeat to fit rows at several)."),
    fmt: Format = FORMAT_OPTION,
) -> None:
    """How close the cost model is to the measurements the project knows (--report), or fit a
    profile (--fit, --fit-phases)."""
    if fit:
        from tokenpilot.cli_calibrate import calibrate_fit

        calibrate_fit(fit, fleet, out, fmt)
        return
    if fit_phases is not None:
        from tokenpilot.cli_calibrate import calibrate_fit_phases

        calibrate_fit_phases(fit_phases, gpu, model, tp or [], out, fmt)
        return
    if not report:
        raise fail("pass --report, --fit LOG --fleet FLEET.yaml --out PROFILE.yaml, or "
                   "--fit-phases CSV --gpu G --model M --tp N --out PROFILE.yaml")
    try:
        rep = fidelity_report()
    except FileNotFoundError as e:
        raise fail(str(e), code=1) from e
    emit(rep, fmt, _render_report)
