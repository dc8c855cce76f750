"""SDK truth (BG201-BG205): the index, its cache, suggestions, the fixture cases, the mutation
evaluation and the commands, all on the team's own test SDK under tests/sdk/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from builders import TEST_SDK, isolate_sdk_cache
from typer.testing import CliRunner

from brickguard.analyze import analyze
from brickguard.cli import app
from brickguard.config import load_config
from brickguard.errors import BrickguardError
from brickguard.sdk.cache import LoadInfo, load_index
from brickguard.sdk.evaluate import evaluate
from brickguard.sdk.index import build_index
from brickguard.sdk.spec import SdkSpec, resolve_sdk
from brickguard.sdk.suggest import suggest

SDK = TEST_SDK
CASES = Path(__file__).parent / "cases" / "sdk"
EXPECT = re.compile(r"expect:\s*(BG\d{3}(?:\s*,\s*BG\d{3})*)")


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    isolate_sdk_cache(tmp_path_factory, monkeypatch)


@pytest.fixture(scope="module")
def v2():
    return load_index(resolve_sdk(SDK / "v2.toml"))


@pytest.mark.parametrize("case", sorted(p for p in CASES.iterdir() if p.is_dir()), ids=str)
def test_case(case: Path) -> None:
    cfg = load_config(case / "brickguard.toml")
    cfg.jobs = 1
    result = analyze([case], cfg)
    got = {(Path(f.location.file).name, f.location.line, f.rule) for f in result.findings}
    want = set()
    for f in sorted(case.glob("*.c")):
        for n, line in enumerate(f.read_text().splitlines(), start=1):
            if m := EXPECT.search(line):
                want |= {(f.name, n, r) for r in re.split(r"\s*,\s*", m.group(1))}
    detail = "\n".join(f"  {f.location.line} {f.rule} {f.message}" for f in result.findings)
    assert not want - got, f"missing {sorted(want - got)}; found:\n{detail}"
    assert not got - want, f"unexpected {sorted(got - want)}; found:\n{detail}"


def test_index_holds_functions_macros_enums_fields(v2) -> None:
    fn = v2.functions["media_pipeline_create"]
    assert [p.name for p in fn.params] == ["ctx", "config"]
    assert v2.macros["__HAL_LINKDMA"].params == ("HANDLE", "FIELD", "DMAH")
    assert v2.macros["GPIOA"].params is None  # object-like
    assert v2.enum_constants["USART2_IRQn"].enum == "IRQn_Type"
    assert {"ODR", "IDR", "BSRR", "MODER"} <= set(v2.structs["GPIO_TypeDef"])
    assert v2.typedefs["HAL_StatusTypeDef"]
    assert "size_t" not in v2.typedefs  # builtin headers are not the SDK's


def test_cache_hit_then_rebuild_on_header_change(tmp_path: Path) -> None:
    inc = tmp_path / "inc"
    inc.mkdir()
    header = inc / "dev.h"
    header.write_text("#define DEV_A 1\nint dev_init(int mode);\n")
    spec = resolve_sdk(inc, "dev", "1")
    info: list[LoadInfo] = []
    first = load_index(spec, tmp_path / "cache", info=info)
    second = load_index(spec, tmp_path / "cache", info=info)
    assert [i.hit for i in info] == [False, True]
    assert second.counts() == first.counts()
    header.write_text("#define DEV_A 1\n#define DEV_B 2\nint dev_init(int mode);\n")
    third = load_index(spec, tmp_path / "cache", info=info)
    assert info[-1].hit is False and "DEV_B" in third.macros


def test_header_that_fails_to_parse_is_reported_and_the_rest_indexed(tmp_path: Path) -> None:
    (tmp_path / "good.h").write_text("int good_fn(void);\n#define GOOD_M(a, b) ((a) + (b))\n")
    (tmp_path / "bad.h").write_text('#include "missing_dep.h"\nint bad_fn(void);\n')
    index = build_index(SdkSpec("t", "1", (tmp_path,)))
    assert "good_fn" in index.functions and index.macros["GOOD_M"].params == ("a", "b")
    assert any("missing_dep.h" in e[3] for e in index.errors)


def test_bad_sdk_paths_name_the_path(tmp_path: Path) -> None:
    with pytest.raises(BrickguardError, match="not found"):
        resolve_sdk(tmp_path / "nope")
    with pytest.raises(BrickguardError, match="no headers"):
        resolve_sdk(tmp_path)
    result = CliRunner().invoke(app, ["sdk-index", "--sdk", str(tmp_path / "nope")])
    assert result.exit_code == 2 and "nope" in result.output


def test_suggestions_rank_the_real_name_first(v2) -> None:
    names = [*v2.functions, *v2.macros, *v2.enum_constants]
    assert suggest("HAL_UART_TransmitDMA", names)[0] == "HAL_UART_Transmit_DMA"
    assert suggest("HAL_Uart_Init", names)[0] == "HAL_UART_Init"
    assert suggest("HAL_GPIO_TogglePins", names)[0] == "HAL_GPIO_TogglePin"
    assert suggest("USART4_IRQn", names, used={"USART2_IRQn"})[0] == "USART2_IRQn"
    assert suggest("completely_unrelated_name", names) == []


def test_eval_mutations_meets_the_targets_on_a_subset() -> None:
    specs = [resolve_sdk(SDK / "v2.toml"), resolve_sdk(SDK / "v1.toml")]
    report = evaluate(specs, SDK / "demos", seed=3, per_kind=6)
    total = report["all"]
    assert report["baseline_false_positives"] == 0
    assert total["mutants"] >= 40
    assert total["recall"] >= 0.95 and total["precision"] >= 0.95
    assert total["top1_rate"] >= 0.8
    assert {k["kind"] for k in report["kinds"] if k["mutants"]} >= {"previous_version", "arg_added"}


def test_commands_print_counts_and_scores() -> None:
    runner = CliRunner()
    out = runner.invoke(app, ["sdk-index", "--sdk", str(SDK / "v2.toml"), "--format", "json"])
    assert out.exit_code == 0, out.output
    assert '"functions"' in out.stdout
    out = runner.invoke(
        app,
        ["eval-mutations", "--sdk", str(SDK / "v2.toml"), "--code", str(SDK / "demos/tim_pwm.c")]
        + ["--per-kind", "2", "--kind", "arg_dropped"],
    )
    assert out.exit_code == 0, out.output
    assert "arg_dropped" in out.stdout and "recall" in out.stdout
    args = ["eval-mutations", "--sdk", str(SDK / "v2.toml"), "--code", str(SDK), "--kind", "?"]
    bad = runner.invoke(app, args)
    assert bad.exit_code == 2


def test_the_sdk_rules_share_one_classification_per_program(monkeypatch) -> None:
    """Five rules read Program.sdk_findings: each unit's diagnostics are classified once."""
    from brickguard.sdk import engine

    calls = []
    real = engine.classify
    monkeypatch.setattr(engine, "classify", lambda *a: calls.append(1) or real(*a))
    case = CASES / "hallucinated"
    cfg = load_config(case / "brickguard.toml")
    cfg.jobs = 1
    result = analyze([case], cfg)
    assert {f.rule for f in result.findings} & {"BG201", "BG202", "BG203"}
    assert len(calls) == len(result.files)
