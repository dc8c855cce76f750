"""The demo index (``brickguard demos index``) and ``[demos]``: example projects read from their
IDE files, rules mined with their example lines, the cache, and bad input (one line, and the
check goes on without the BG4xx rules). The BG4xx findings themselves are the fixture cases'
(tests/cases/bg40x) and the rule examples' (test_rule_examples.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from brickguard.cli import app
from brickguard.config import config_from_dict
from brickguard.demos import index as di
from brickguard.demos.model import DemoIndex
from brickguard.demos.projects import find_projects
from brickguard.errors import ConfigError

DEMOS = Path(__file__).parent / "demos"
EXAMPLES = DEMOS / "examples"
SHARED = Path(__file__).resolve().parents[2].parent / "shared/firmware/stm32f4/demos"
I2C = SHARED / "Projects/STM32F4-Discovery/Examples/I2C"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRICKGUARD_CACHE_DIR", str(tmp_path / "cache" / "sdk"))


def test_each_ide_file_kind_gives_sources_includes_and_defines() -> None:
    projects = {p.name: p for p in find_projects(EXAMPLES)}
    assert sorted(projects) == ["I2C_MasterIT", "I2C_RestartIT", "I2C_SlaveIT"]
    kinds = {p.ide_files[0].suffix or p.ide_files[0].name for p in projects.values()}
    assert kinds == {".uvprojx", ".ewp", ".cproject"}
    for p in projects.values():
        assert [s.name for s in p.sources] == ["main.c", "stm32_hal_msp.c", "stm32_it.c"]
        assert "USE_HAL_DRIVER" in p.defines
        assert p.root / "Inc" in p.include
    # The HAL folder the IDE files name (ST's Drivers/ tree) is not here: found by its headers.
    notes: list[str] = []
    found = di.discover([EXAMPLES], notes)
    assert notes == []
    assert all(DEMOS / "hal" / "Inc" in p.include for p in found)


def test_mined_rules_generalise_over_the_instance_and_cite_example_lines() -> None:
    idx = di.build([EXAMPLES], jobs=1)
    rule = next(r for r in idx.rules if r.api == "HAL_I2C_Init"
                and r.step == "__HAL_RCC_{i}_CLK_ENABLE")
    assert (rule.rule, rule.support, rule.of, rule.msp) == ("BG404", 3, 3, "HAL_I2C_MspInit")
    for site in rule.sites:  # the line holds the step as the example writes it (an alias)
        line = Path(site.file).read_text().splitlines()[site.line - 1]
        assert site.written == "I2Cx_CLK_ENABLE" and site.written in line
    steps = {(r.api, r.step) for r in idx.rules}
    assert ("HAL_I2C_*_IT", "handler:{i}_EV_IRQHandler->HAL_{p}_EV_IRQHandler") in steps
    assert ("HAL_I2C_*_IT", "HAL_NVIC_EnableIRQ({i}_EV_IRQn)") in steps
    assert ("HAL_I2C_Init", "HAL_Init") in steps
    # Board wiring (GPIOB on these boards) is no rule of HAL_I2C_Init's.
    assert not any("GPIOB" in r.step for r in idx.rules if r.api == "HAL_I2C_Init")
    assert DemoIndex.from_dict(json.loads(json.dumps(idx.to_dict()))).rules == idx.rules


def test_a_higher_threshold_than_the_examples_keeps_no_rule_and_says_so() -> None:
    idx = di.build([EXAMPLES], min_support=4, jobs=1)
    assert idx.rules == []
    assert len(idx.notes) == 1 and "support no protocol rule" in idx.notes[0]
    assert "\n" not in idx.notes[0]


def test_bad_demo_folders_are_one_line_each(tmp_path: Path) -> None:
    notes: list[str] = []
    found = di.discover([DEMOS / "broken" / "no_project", DEMOS / "broken" / "bad_ide",
                         tmp_path / "absent"], notes)
    assert found == []
    assert len(notes) == 3, notes
    for says in ("no example project found", "cannot read this IDE project file",
                 "no such demo folder"):
        assert sum(says in n for n in notes) == 1, (says, notes)
    assert not any("\n" in n for n in notes)


def test_cli_index_writes_demos_json_and_the_second_run_is_a_cache_hit(tmp_path: Path) -> None:
    out = tmp_path / "DEMOS.json"
    cache = tmp_path / "demo-cache"
    code, stdout, stderr = run("demos", "index", str(EXAMPLES), "--out", str(out),
                               "--cache", str(cache), "-j", "1")
    assert code == 0, stderr
    assert "indexed" in stderr and "BG404" in stdout
    assert di.read_index(out).rules
    code, _, stderr = run("demos", "index", str(EXAMPLES), "--cache", str(cache), "-j", "1")
    assert code == 0 and "cache hit" in stderr
    # An edited example is re-mined, never read stale from the cache.
    work = tmp_path / "examples"
    import shutil

    shutil.copytree(EXAMPLES, work)
    info: list = []
    di.load_index([work], cache_dir=cache, jobs=1, info=info)
    msp = work / "I2C_SlaveIT" / "Src" / "stm32_hal_msp.c"
    msp.write_text(msp.read_text().replace("    I2Cx_CLK_ENABLE();\n", ""))
    idx = di.load_index([work], cache_dir=cache, jobs=1, info=info)
    assert [hit for _, hit in info] == [False, False]
    assert not any(r.step == "__HAL_RCC_{i}_CLK_ENABLE" and r.api == "HAL_I2C_Init"
                   for r in idx.rules)


def test_demos_table(tmp_path: Path) -> None:
    cfg = config_from_dict({"demos": {"folders": ["ex"], "min_support": 4}}, tmp_path)
    assert cfg.demos is not None and cfg.demos.folders == (tmp_path / "ex",)
    assert cfg.demos.min_support == 4 and cfg.collect_uses
    with pytest.raises(ConfigError, match="folders"):
        config_from_dict({"demos": {}}, tmp_path)
    with pytest.raises(ConfigError, match="min_support"):
        config_from_dict({"demos": {"folders": ["ex"], "min_support": 1}}, tmp_path)


CASE = Path(__file__).parent / "cases" / "bg404" / "no_peripheral_clock" / "main.c"


@pytest.mark.parametrize("demos, says", [
    ('folders = ["{broken}/no_project"]', "no example project found"),
    ('folders = ["{broken}/bad_ide"]', "cannot read this IDE project file"),
    ('index = "{tmp}/DEMOS.json"', "not a demo index"),
])
def test_check_says_what_it_could_not_use_and_goes_on(tmp_path: Path, demos: str,
                                                      says: str) -> None:
    (tmp_path / "DEMOS.json").write_text("{not json")
    text = demos.format(broken=DEMOS / "broken", tmp=tmp_path)
    (tmp_path / "brickguard.toml").write_text(
        f'[build]\njobs = 1\ninclude = ["{DEMOS / "hal" / "Inc"}"]\n[demos]\n{text}\n')
    (tmp_path / "main.c").write_text(CASE.read_text())
    code, stdout, stderr = run("check", str(tmp_path / "main.c"), "--format", "json")
    assert code == 0, stderr
    lines = [ln for ln in stderr.splitlines() if ln.startswith("brickguard: demos:")]
    assert sum(says in ln for ln in lines) == 1, stderr
    assert "do not run" in lines[-1], stderr
    assert not [f for f in json.loads(stdout)["findings"] if f["rule"].startswith("BG4")]


def test_prebuilt_index_in_config_is_used(tmp_path: Path) -> None:
    out = tmp_path / "DEMOS.json"
    di.save(di.build([EXAMPLES], jobs=1), out)
    (tmp_path / "brickguard.toml").write_text(
        f'[build]\njobs = 1\ninclude = ["{DEMOS / "hal" / "Inc"}"]\n[demos]\nindex = "{out}"\n')
    (tmp_path / "main.c").write_text(CASE.read_text())
    code, stdout, _ = run("check", str(tmp_path / "main.c"), "--format", "json")
    rules = {f["rule"] for f in json.loads(stdout)["findings"]}
    assert code == 1 and "BG404" in rules


@pytest.mark.skipif(not I2C.is_dir(), reason="the shared STM32F4 examples are absent")
def test_the_vendors_i2c_examples_teach_the_clock_and_the_interrupt_side() -> None:
    folders = [I2C / n for n in ("I2C_TwoBoards_ComIT", "I2C_TwoBoards_AdvComIT",
                                 "I2C_TwoBoards_RestartComIT")]
    notes: list[str] = []
    projects = di.discover(folders, notes, search=[SHARED.parent.parent])
    assert len(projects) == 3 and not notes
    idx = di.build(folders, projects=projects, notes=notes)
    # The Discovery board's BSP header is absent on purpose: said once, parsed on without it.
    assert [n for n in idx.notes if "stm32f4_discovery.h" in n] == [
        "stm32f4_discovery.h: not found for 3 example project(s), on their include paths or "
        "beside them; parsed on without it"]
    by = {(r.api, r.step): r for r in idx.rules}
    clock = by[("HAL_I2C_Init", "__HAL_RCC_{i}_CLK_ENABLE")]
    assert clock.of == 3 and all(s.file.endswith("stm32f4xx_hal_msp.c") for s in clock.sites)
    for s in clock.sites:
        assert "I2Cx_CLK_ENABLE" in Path(s.file).read_text().splitlines()[s.line - 1]
    assert ("HAL_I2C_*_IT", "handler:{i}_EV_IRQHandler->HAL_{p}_EV_IRQHandler") in by
