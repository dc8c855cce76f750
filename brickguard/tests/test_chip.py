"""The part's data: ST's pin data read and cached, part names, the .ioc file."""

from __future__ import annotations

from pathlib import Path

import pytest

from brickguard.chip.pins import expand_ref, load_pin_data
from brickguard.config import load_config
from brickguard.errors import ConfigError

PINS = Path(__file__).resolve().parents[3] / "shared" / "firmware" / "pins" / "stm32"
needs_pins = pytest.mark.skipif(not PINS.is_dir(), reason=f"{PINS} (ST's pin data) is absent")


def test_ref_names_expand() -> None:
    assert expand_ref("STM32F407V(E-G)Tx") == ["STM32F407VETx", "STM32F407VGTx"]
    assert expand_ref("STM32F405RGTx") == ["STM32F405RGTx"]


@needs_pins
def test_f407_pins_and_cache(tmp_path: Path) -> None:
    data = load_pin_data(PINS, "STM32F407VGTx", cache_dir=tmp_path)
    assert data.ref == "STM32F407V(E-G)Tx" and data.package == "LQFP100"
    assert {(s.name, s.af) for s in data.pins["PB6"]} >= {("I2C1_SCL", 4), ("USART1_TX", 7)}
    assert "PI0" not in data.pins and "PH1" in data.pins
    assert "UART4" in data.instances and "UART7" not in data.instances
    assert "UART7" in data.known_instances  # an F429 has one
    assert data.signal_pins("I2C1")["I2C1_SCL"] == [("PB6", 4), ("PB8", 4)]
    assert len(list(tmp_path.glob("*.json"))) == 1
    again = load_pin_data(PINS, "stm32f407vgtx", cache_dir=tmp_path)  # from the cache
    assert again.pins == data.pins and again.mcu == "stm32f407vgtx"
    # another die: an F401 has USART6 but no UART4
    f401 = load_pin_data(PINS, "STM32F401VCTx", cache_dir=tmp_path)
    assert "USART6" in f401.instances and "UART4" not in f401.instances


@needs_pins
def test_unknown_part_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such part.*STM32F407"):
        load_pin_data(PINS, "STM32F407XXQQ", cache_dir=tmp_path)
    with pytest.raises(ConfigError, match="no such folder"):
        load_pin_data(tmp_path / "nothing", "STM32F407VGTx", cache_dir=tmp_path)


def test_part_from_cubemx_ioc(tmp_path: Path) -> None:
    (tmp_path / "board.ioc").write_text("#MicroXplorer\nMcu.Name=STM32F407V(E-G)Tx\n"
                                        "Mcu.UserName=STM32F407VGTx\nMcu.Family=STM32F4\n")
    cfg = load_config(start=tmp_path)
    assert cfg.mcu == "STM32F407VGTx" and cfg.mcu_source.endswith("board.ioc")
    (tmp_path / "brickguard.toml").write_text('[target]\nmcu = "STM32F401VCTx"\n')
    assert load_config(start=tmp_path).mcu == "STM32F401VCTx"  # the file wins


def test_errata_data_is_complete() -> None:
    """Every erratum says what goes wrong, the workaround, and where the HAL applies it; the
    checked ones say which register write and which accesses they are about."""
    from brickguard.chip.errata import errata

    found = errata()
    assert {e.id for e in found} >= {"rcc-clock-enable-delay", "pwr-dbp-delay"}
    for e in found:
        assert e.title and e.description and e.workaround and e.hal, e.id
        if e.checked:
            assert e.block and e.register and e.bit and e.readback, e.id
    rcc = next(e for e in found if e.id == "rcc-clock-enable-delay")
    assert rcc.sheet("STM32F407VGTx") == "ES0182" and rcc.sheet("STM32F401VCTx") == ""


def test_clock_limits_cite_their_sources() -> None:
    from brickguard.chip.clock import line_for, lines

    assert all(ln.source.startswith("RM0") for ln in lines())
    f407 = line_for("STM32F407VGTx")
    assert f407 is not None and f407.apb1_max == 42
    assert f407.required_wait_states(168, 3300) == (5, [30, 60, 90, 120, 150, 168])
    assert f407.required_wait_states(168, 2000)[0] == -1  # over 1.8-2.1 V's 160 MHz
    assert f407.required_wait_states(100, 1500) is None  # no such supply range
    assert line_for("STM32F411CEUx").sysclk_max["1"] == 100


@pytest.mark.parametrize("literal, value", [
    ("0x20000", 0x20000), ("0020000", 0o20000), ("0", 0), ("10UL", 10), ("0b101", 5)])
def test_c_integer_literals_octal_included(literal, value):
    from brickguard.facts import c_int

    assert c_int(literal) == value
