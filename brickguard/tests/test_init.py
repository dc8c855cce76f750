"""``brickguard init``: a working brickguard.toml from the project's own build files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from builders import isolate_sdk_cache
from typer.testing import CliRunner

from brickguard.analyze import analyze
from brickguard.cli import app
from brickguard.config import load_config
from brickguard.init import init_project

FIRMWARE = Path(__file__).resolve().parents[2].parent / "shared" / "firmware"
DEMO = FIRMWARE / "stm32f4/demos/Projects/STM32F4-Discovery/Examples/GPIO/GPIO_EXTI"

CPROJECT = """<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<cproject><storageModule moduleId="org.eclipse.cdt.core.settings">
<cconfiguration
  id="com.st.stm32cube.ide.mcu.gnu.managedbuild.config.exe.debug.1">
<option superClass="com.st.stm32cube.ide.mcu.gnu.managedbuild.option.target_mcu"
        value="STM32F746NGHx"/>
<option superClass="com.st.stm32cube.ide.mcu.gnu.managedbuild.option.fpu"
        value="com.st.stm32cube.ide.mcu.gnu.managedbuild.option.fpu.value.fpv5-sp-d16"/>
<option
  superClass="com.st.stm32cube.ide.mcu.gnu.managedbuild.tool.c.compiler.option.definedsymbols">
  <listOptionValue builtIn="false" value="DEBUG"/><listOptionValue builtIn="false" value="BOARD=7"/>
</option>
<option
  superClass="com.st.stm32cube.ide.mcu.gnu.managedbuild.tool.c.compiler.option.includepaths">
  <listOptionValue builtIn="false" value="../../Core/Inc"/>
  <listOptionValue builtIn="false" value="../../../Vendor/NotHere/Inc"/>
</option>
</cconfiguration></storageModule></cproject>
"""


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    isolate_sdk_cache(tmp_path_factory, monkeypatch)


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_cubeide_project_and_headers_found_above_it(tmp_path: Path) -> None:
    # The SDK is not where the .cproject says (../../../Vendor/NotHere): the header the code
    # includes is found in the folders above the project instead, and a BSP header nowhere.
    _tree(tmp_path, {"sdk/hal/Inc/vendor_hal.h": "#define VENDOR_HAL 1\n",
                     "sdk/hal/Src/vendor_hal.c": "int v;\n"})
    project = _tree(tmp_path / "app", {
        "STM32CubeIDE/.cproject": CPROJECT,
        "Core/Inc/main.h": '#include "vendor_hal.h"\n#include "board_bsp.h"\n',
        "Core/Src/main.c": '#include "main.h"\nint main(void) { return VENDOR_HAL; }\n',
        "Drivers/x/Src/x.c": "int x;\n",
    })
    p = init_project(project)
    assert p.mcu == "STM32F746NGHx" and p.triple == "thumbv7em-none-eabi"
    assert p.flags[:2] == ["-mcpu=cortex-m7", "-mfpu=fpv5-sp-d16"]
    assert p.defines == ["BOARD=7"]
    assert project / "Core/Inc" in p.include and tmp_path / "sdk/hal/Inc" in p.include
    assert [d.name for d in p.dropped] == ["Inc"] and p.missing_headers == ["board_bsp.h"]
    assert p.exclude == ["Drivers/**", "**/*_template.c"] and p.profiles == ["cmsis"]
    text = p.toml()
    assert '# mcu = "STM32F746NGHx"' in text and "board_bsp.h" in text
    (project / "brickguard.toml").write_text(text)
    cfg = load_config(start=project)
    result = analyze([project], cfg)
    assert result.files == [str(project / "Core/Src/main.c")]  # Drivers/ excluded
    assert [f.rule for f in result.findings].count("BG000") == 1  # board_bsp.h, once


def test_makefile_flags_and_ioc(tmp_path: Path) -> None:
    project = _tree(tmp_path, {
        "Makefile": "C_DEFS = \\\n-DUSE_HAL_DRIVER \\\n-DSTM32L476xx\nC_INCLUDES = -ICore/Inc "
                    "-I$(SDK)/Inc\nCPU = -mcpu=cortex-m4\n",
        "demo.ioc": "Mcu.Name=STM32L476R(C-E-G)Tx\nMcu.UserName=STM32L476RGTx\nMcu.IP0=FREERTOS\n",
        "Core/Inc/app.h": "#define APP 1\n",
        "Core/Src/app.c": '#include "app.h"\nint f(void) { return APP; }\n',
    })
    p = init_project(project)
    assert p.defines == ["USE_HAL_DRIVER", "STM32L476xx"]
    assert p.include == [project / "Core/Inc"] and "-mcpu=cortex-m4" in p.flags
    assert p.mcu == "STM32L476RGTx" and p.profiles == ["cmsis", "freertos"]
    assert "Makefile (-I/-D flags)" in p.sources_from and "demo.ioc" in p.sources_from


def test_compile_commands_win(tmp_path: Path) -> None:
    project = _tree(tmp_path, {"src/a.c": "int a;\n"})
    (project / "build").mkdir()
    (project / "build/compile_commands.json").write_text(json.dumps([{
        "directory": str(project / "build"), "file": "../src/a.c",
        "arguments": ["arm-none-eabi-gcc", "-mcpu=cortex-m33", "-DX=1", "-c", "../src/a.c"]}]))
    p = init_project(project)
    assert p.compile_commands == project / "build/compile_commands.json"
    assert p.triple == "thumbv8m.main-none-eabi"
    assert 'compile_commands = "build/compile_commands.json"' in p.toml()


def test_cli_refuses_to_overwrite_and_writes_elsewhere(tmp_path: Path) -> None:
    project = _tree(tmp_path / "p", {"main.c": "int main(void) { return 0; }\n",
                                     "brickguard.toml": "# mine\n"})
    result = CliRunner().invoke(app, ["init", str(project)])
    assert result.exit_code == 2 and "exists; pass --force" in result.stderr
    out = tmp_path / "cfg" / "brickguard.toml"
    out.parent.mkdir()
    result = CliRunner().invoke(app, ["init", str(project), "--output", str(out)])
    assert result.exit_code == 0 and 'root = "../p"' in out.read_text()
    assert load_config(out).root == project.resolve()


@pytest.mark.skipif(not DEMO.is_dir(), reason=f"the shared firmware is not at {FIRMWARE}")
def test_init_then_check_misra_on_an_st_example(tmp_path: Path) -> None:
    out = tmp_path / "brickguard.toml"
    assert CliRunner().invoke(app, ["init", str(DEMO), "--output", str(out)]).exit_code == 0
    result = CliRunner().invoke(app, ["check", str(DEMO), "--config", str(out), "--misra",
                                      "--format", "json", "--select", "BG0,MISRA"])
    assert result.exit_code == 1, result.stderr
    findings = json.loads(result.stdout)["findings"]
    bg000 = [f["message"] for f in findings if f["rule"] == "BG000"]
    # Only the board header the shared tree lacks; no C library header is missing.
    assert len(bg000) == 1 and "stm32f4_discovery.h" in bg000[0], bg000
    assert sum(f["rule"].startswith("MISRA") for f in findings) > 20
    assert not [f for f in findings if f["rule"] == "BG002" and "MISRA" in f["message"]]


def test_the_cli_writes_the_file_name_the_config_reads() -> None:
    from brickguard import cli_init, config

    assert cli_init.CONFIG_NAME == config.CONFIG_NAME
