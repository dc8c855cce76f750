"""brickguard.toml: defaults, extension vs replacement, and clear errors for bad files."""

from __future__ import annotations

from pathlib import Path

import pytest

from brickguard.config import (
    DEFAULT_CRITICAL_SECTIONS,
    Config,
    Registration,
    load_config,
)
from brickguard.errors import BrickguardError, ConfigError

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "i2c_slave"


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "brickguard.toml"
    p.write_text(text)
    return p


def test_defaults_without_a_file(tmp_path: Path) -> None:
    cfg = load_config(start=tmp_path)
    assert cfg.root == tmp_path.resolve()
    assert cfg.target == "thumbv7em-none-eabi" and cfg.word_bits == 32
    assert ("__disable_irq", "__enable_irq") in cfg.critical_sections
    assert "*_IRQHandler" in cfg.interrupt_patterns
    assert Registration("xTaskCreate", 0) in cfg.task_creators
    assert cfg.rule_enabled("BG101")


def test_found_in_a_parent_folder_and_paths_relative_to_it(tmp_path: Path) -> None:
    write(tmp_path, '[build]\ninclude = ["inc"]\ndefines = ["X=1"]\njobs = 2\n')
    sub = tmp_path / "src" / "deep"
    sub.mkdir(parents=True)
    cfg = load_config(start=sub)
    assert cfg.include == [(tmp_path / "inc").resolve()]
    assert cfg.defines == ["X=1"] and cfg.jobs == 2


def test_lists_extend_defaults_unless_replace(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, '[critical]\npairs = [["lock", "unlock"]]\n'))
    assert cfg.critical_sections == [*DEFAULT_CRITICAL_SECTIONS, ("lock", "unlock")]
    cfg = load_config(write(tmp_path, '[critical]\npairs = [["lock", "unlock"]]\nreplace = true\n'))
    assert cfg.critical_sections == [("lock", "unlock")]
    text = '[interrupts]\nregistrations = [{function = "irq_attach", arg = -1}]\n'
    cfg = load_config(write(tmp_path, text))
    assert Registration("irq_attach", -1) in cfg.interrupt_registrations


def test_select_and_ignore(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, '[rules]\nselect = ["BG1"]\nignore = ["BG104"]\n'))
    assert cfg.rule_enabled("BG101") and not cfg.rule_enabled("BG104")
    assert not cfg.rule_enabled("BG000")
    assert Config(root=tmp_path, ignore=["BG10"]).rule_enabled("BG000")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[build]\nincludes = []\n", ["[build] includes", "unknown key"]),
        ("[bogus]\nx = 1\n", ["[bogus]: unknown table"]),
        ("[target]\nword_bits = 24\n", ["word_bits"]),
        ('[build]\ninclude = "inc"\n', ["[build] include", "list of strings"]),
        ('[critical]\npairs = [["only_one"]]\n', ["pairs"]),
        ('[rules]\nfail_on = "sometimes"\n', ["fail_on"]),
        ('[tasks]\ncreators = [{function = "f"}]\n', ["creators"]),
        ("[build\n", ["not valid TOML"]),
    ],
)
def test_bad_files_name_the_file_and_key(tmp_path: Path, text: str, words: list[str]) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    message = str(err.value)
    assert str(path) in message
    for w in words:
        assert w in message


def test_missing_explicit_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "nope.toml")
    assert issubclass(ConfigError, BrickguardError)


def test_the_example_configuration_loads() -> None:
    cfg = load_config(EXAMPLE / "brickguard.toml")
    assert cfg.include == [(EXAMPLE / "include").resolve()]
    assert "HAL_I2C_SlaveRxCpltCallback" in cfg.interrupt_callbacks
