"""The front end and the pipeline around it: flags, parallel parsing, bad input, the example."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from builders import STUB_INCLUDE, fixture_config

from brickguard.analyze import analyze
from brickguard.build_flags import RESOURCE_HINT, find_resource_dir
from brickguard.config import Config, load_config
from brickguard.errors import BrickguardError
from brickguard.frontend import FrontEnd
from brickguard.rules import all_rules, get_rule

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE.parent / "examples" / "i2c_slave"

RACE = """
#include <stdint.h>
#include "cmsis_stub.h"
volatile uint8_t buf[8];
void USART1_IRQHandler(void) { buf[0]++; }
int main(void) { process(0, 0); if (buf[0]) { buf[0] = 0; } return 0; }
"""


def needs_resource_dir() -> None:
    if find_resource_dir() is None:
        pytest.skip("no clang resource dir (install libclang-common-14-dev)")


def test_example_buggy_has_the_race_and_fixed_has_none() -> None:
    needs_resource_dir()
    cfg = load_config(EXAMPLE / "brickguard.toml")
    cfg.jobs = 1
    buggy = analyze([EXAMPLE / "buggy"], cfg)
    rules = {(Path(f.location.file).name, f.rule) for f in buggy.findings}
    assert ("main.c", "BG101") in rules and ("main.c", "BG104") in rules
    assert not any(f.rule == "BG000" for f in buggy.findings)
    # rx_index read for the copy, then reset: the handler's byte between them is lost (R-W-W)
    race = next(f for f in buggy.findings if f.rule == "BG101" and "(R-W-W)" in f.message)
    assert "rx_index" in race.message and "HAL_I2C_SlaveRxCpltCallback" in race.message
    assert [Path(s.file).name for s in race.flow] == ["main.c", "i2c_slave.c", "main.c"]
    assert race.related and race.related[0].line == race.flow[1].line  # the handler's access
    assert analyze([EXAMPLE / "fixed"], cfg).findings == []


def test_parallel_and_serial_agree() -> None:
    needs_resource_dir()
    cfg = load_config(EXAMPLE / "brickguard.toml")
    cfg.jobs = 1
    serial = analyze([EXAMPLE / "buggy"], cfg)
    cfg.jobs = 2
    parallel = analyze([EXAMPLE / "buggy"], cfg)
    assert serial.findings == parallel.findings and serial.files == parallel.files


def test_missing_path_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(BrickguardError, match="nope.c: no such file"):
        analyze([tmp_path / "nope.c"], Config(root=tmp_path))


def test_unparsable_file_is_bg000_and_others_go_on(tmp_path: Path) -> None:
    needs_resource_dir()
    (tmp_path / "a_bad.c").write_text("int f(void) { return 1 +; }\n")
    (tmp_path / "b_race.c").write_text(RACE)
    result = analyze([tmp_path], fixture_config(tmp_path))
    by_rule = {f.rule: f for f in result.findings}
    assert by_rule["BG000"].location.line == 1 and "expected expression" in by_rule["BG000"].message
    assert "BG101" in by_rule
    assert len(result.files) == 2


def test_compile_commands_flags_are_used(tmp_path: Path) -> None:
    needs_resource_dir()
    src = tmp_path / "src"
    src.mkdir()
    guard = "#ifndef HAVE_RACE\n#error define HAVE_RACE\n#endif\n"
    (src / "race.c").write_text(guard + RACE)
    argv = ["arm-none-eabi-gcc", "-DHAVE_RACE", f"-I{STUB_INCLUDE}", "-c", "race.c", "-o", "race.o"]
    db = [{"directory": str(src), "file": "race.c", "arguments": argv}]
    (tmp_path / "compile_commands.json").write_text(json.dumps(db))
    cfg = Config(root=tmp_path, compile_commands=tmp_path / "compile_commands.json", jobs=1)
    rules = [f.rule for f in analyze([src / "race.c"], cfg).findings]
    assert rules == ["BG101"]
    # Without the database the #error fires: the flags really came from it.
    plain = fixture_config(tmp_path)
    rules = [f.rule for f in analyze([src / "race.c"], plain).findings]
    assert "BG000" in rules


def test_bad_compile_database_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "cc.json").write_text("{not json")
    (tmp_path / "a.c").write_text("int x;\n")
    with pytest.raises(BrickguardError, match="cc.json"):
        analyze([tmp_path / "a.c"], Config(root=tmp_path, compile_commands=tmp_path / "cc.json"))


def test_missing_resource_dir_says_how_to_fix(tmp_path: Path) -> None:
    (tmp_path / "a.c").write_text("#include <stddef.h>\nsize_t n;\n")
    cfg = Config(root=tmp_path, resource_dir=tmp_path / "empty", jobs=1)
    assert FrontEnd(cfg).resource_dir is None
    result = analyze([tmp_path / "a.c"], cfg)
    bg000 = [f for f in result.findings if f.rule == "BG000"]
    assert bg000 and RESOURCE_HINT in bg000[0].message and "stddef.h" in bg000[0].message


def test_missing_project_header_says_where_to_point_brickguard(tmp_path: Path) -> None:
    needs_resource_dir()
    (tmp_path / "a.c").write_text('#include "vendor_hal.h"\nint x;\n')
    result = analyze([tmp_path / "a.c"], Config(root=tmp_path, jobs=1))
    (bg000,) = [f for f in result.findings if f.rule == "BG000"]
    assert "vendor_hal.h" in bg000.message and "[build] include" in bg000.message


def test_rule_registry() -> None:
    ids = [r.id for r in all_rules()]
    assert ids == sorted(ids) and ids[0] == "BG000" and {"BG101", "BG105"} <= set(ids)
    for r in all_rules():
        assert r.title and r.rationale and r.instead and r.example_bad and r.example_good
    assert get_rule("bg102").id == "BG102"
    with pytest.raises(KeyError):
        get_rule("BG999")


def test_select_limits_the_rules_that_run(tmp_path: Path) -> None:
    needs_resource_dir()
    # not volatile, and polled by a loop that calls nothing: BG104's register copy
    spin = RACE.replace("volatile ", "").replace("return 0;", "while (!buf[0]) { } return 0;")
    (tmp_path / "r.c").write_text(spin)
    cfg = fixture_config(tmp_path)
    assert {f.rule for f in analyze([tmp_path], cfg).findings} == {"BG101", "BG104"}
    cfg.ignore = ["BG104"]
    result = analyze([tmp_path], cfg)
    assert {f.rule for f in result.findings} == {"BG101"}
    assert "BG104" not in {r.id for r in result.rules}
