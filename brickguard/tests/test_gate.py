"""The gate never passes silently: every way a check could be skipped, stopped or switched off by
a typo is reported, and each has a test here that fails if it goes quiet again (issue 18)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from builders import STUB_INCLUDE
from typer.testing import CliRunner

from brickguard import toolchain
from brickguard.analyze import NoSourcesError, analyze, collect_sources
from brickguard.cli import app
from brickguard.cli_check import CI_VARIABLES
from brickguard.config import Config, load_config
from brickguard.errors import ConfigError
from brickguard.globs import Globs
from brickguard.misra import MisraRun
from brickguard.rule_ids import checked_ids, known_ids
from brickguard.rules import all_rules

FIRMWARE = Path(__file__).resolve().parents[2].parent / "shared" / "firmware"
needs_cppcheck = pytest.mark.skipif(
    shutil.which("cppcheck") is None, reason="cppcheck is not installed (apt-get install cppcheck)"
)
CLEAN_C = "static int twice(int x) { return 2 * x; }\nint main(void) { return twice(1); }\n"


@pytest.fixture(autouse=True)
def _not_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in CI_VARIABLES:  # the suite may itself run in CI: each test sets what it needs
        monkeypatch.delenv(name, raising=False)


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def _project(tmp_path: Path, toml: str = "", **files: str) -> Path:
    (tmp_path / "brickguard.toml").write_text("[build]\njobs = 1\n" + toml)
    for name, text in (files or {"main.c": CLEAN_C}).items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


# -- unknown rule IDs ---------------------------------------------------------------------------
@pytest.mark.parametrize("where", ["select", "ignore"])
def test_an_unknown_id_in_the_config_is_an_error_naming_the_nearest(tmp_path: Path,
                                                                    where: str) -> None:
    _project(tmp_path, f'[rules]\n{where} = ["BG1O1"]\n')
    code, out, err = run("check", str(tmp_path))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"[rules] {where}: unknown rule id 'BG1O1' (nearest: BG101)" in err
    assert "known: BG000" in err and "BG501" in err and "MISRA-C2012-<rule>" in err


@pytest.mark.parametrize("option", ["--select", "--ignore"])
def test_an_unknown_id_on_the_command_line_is_an_error(tmp_path: Path, option: str) -> None:
    code, _, err = run("check", str(_project(tmp_path)), option, "BG101,BG999")
    assert code == 2 and "--" in err and "unknown rule id 'BG999'" in err and "nearest" in err


def test_lower_case_and_prefixes_select_what_they_name() -> None:
    # select = ["bg1"] used to select nothing at all, silently: now it is BG1xx.
    assert checked_ids(["bg1", " BG10 ", "misra", "MISRA-C2012-21.1"], "x") == [
        "BG1", "BG10", "MISRA", "MISRA-C2012-21.1"]
    with pytest.raises(ConfigError, match="unknown rule id 'BG9'"):
        checked_ids(["BG9"], "x")


def test_known_ids_come_from_the_registry() -> None:
    # Every registered rule is known, whatever family it belongs to (nothing hard-coded).
    ids = known_ids()
    assert [r.id for r in all_rules()] == ids[: len(all_rules())]
    for rule in all_rules():
        assert checked_ids([rule.id.lower()], "x") == [rule.id]


def test_a_misspelt_suppression_hides_nothing_and_fails(tmp_path: Path) -> None:
    race = ("#include \"cmsis_stub.h\"\nvolatile uint32_t t;\nvoid SysTick_Handler(void) { t++; }\n"
            "int main(void) {\n    __enable_irq();\n"
            "    t++; // brickguard: ignore[BG1O2] reviewed\n    return 0;\n}\n")
    _project(tmp_path, f'include = ["{STUB_INCLUDE}"]\n', **{"main.c": race})
    code, out, _ = run("check", str(tmp_path), "--fail-on", "error")
    assert code == 1
    assert "BG001 [error] unknown rule id 'BG1O2' (nearest: BG102)" in out
    assert "BG102 [warning]" in out  # not hidden: the ID names no rule


# -- an empty selection ------------------------------------------------------------------------
def test_a_folder_with_no_c_files_exits_2_saying_what_was_searched(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("no code here\n")
    code, _, err = run("check", str(tmp_path))
    assert code == 2 and f"no *.c files under {tmp_path}" in err


def test_everything_excluded_exits_2_naming_the_globs(tmp_path: Path) -> None:
    _project(tmp_path, 'exclude = ["Drivers/**"]\n', **{"Drivers/hal.c": CLEAN_C})
    code, _, err = run("check", str(tmp_path))
    assert code == 2 and "all 1 *.c files" in err and "Drivers/**" in err
    with pytest.raises(NoSourcesError):
        analyze([tmp_path], load_config(start=tmp_path))


# -- skipped analyses: BG002 and --fail-on-skip ------------------------------------------------
def test_missing_cppcheck_is_a_note_that_fails_in_ci(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    _project(tmp_path, '[misra]\nenabled = true\ncppcheck = "no-such-cppcheck"\n'
             '[rules]\nselect = ["BG1"]\n')
    code, out, err = run("check", str(tmp_path))
    # select = BG1 does not hide the note; outside CI it does not fail the run, but says so.
    assert code == 0 and "BG002 [note] MISRA C:2012 checks skipped: cppcheck not found" in out
    assert "--fail-on-skip" in err
    assert run("check", str(tmp_path), "--fail-on-skip")[0] == 1
    assert run("check", str(tmp_path), "--ci")[0] == 1
    monkeypatch.setenv("CI", "true")
    assert run("check", str(tmp_path))[0] == 1
    assert run("check", str(tmp_path), "--no-fail-on-skip")[0] == 0
    monkeypatch.setenv("CI", "false")
    assert run("check", str(tmp_path))[0] == 0


@needs_cppcheck
def test_a_preprocessor_error_under_cppcheck_is_reported_not_clean(tmp_path: Path) -> None:
    header = "#ifndef BOARD_REV\n#error Unknown board: define BOARD_REV\n#endif\n"
    _project(tmp_path, "[misra]\nenabled = true\n",
             **{"board.h": header, "main.c": '#include "board.h"\n' + CLEAN_C})
    code, out, err = run("check", str(tmp_path), "--fail-on-skip")
    assert code == 1
    assert "BG002 [note] MISRA C:2012 not checked in this file: a #error fired" in out
    assert "Unknown board" in out and "[build] defines" in out
    assert "MISRA 1/1" in err  # a progress line per file


@needs_cppcheck
def test_the_compiler_macro_is_passed_so_cmsis_style_checks_run(tmp_path: Path) -> None:
    # cmsis_compiler.h's shape: a compiler it does not know is an #error.
    header = ("#if defined(__GNUC__)\n#define INLINE static inline\n"
              "#else\n#error Unknown compiler\n#endif\n")
    body = '#include "compiler.h"\nINLINE int f(int x) { if (x) return 1; return 0; }\n'
    _project(tmp_path, "[misra]\nenabled = true\n", **{"compiler.h": header, "main.c": body})
    result = analyze([tmp_path], load_config(start=tmp_path))
    rules = {f.rule for f in result.findings}
    assert "BG002" not in rules, [f.message for f in result.findings]
    assert any(r.startswith("MISRA-C2012-") for r in rules)  # MISRA really ran on the code


@needs_cppcheck
@pytest.mark.skipif(not (FIRMWARE / "cmsis_core").is_dir(), reason="../shared/firmware absent")
def test_real_cmsis_runs_misra_fast_and_reports_only_the_project(tmp_path: Path) -> None:
    inc = [FIRMWARE / "stm32f4/cmsis_device/Include", FIRMWARE / "cmsis_core/CMSIS/Core/Include"]
    body = ('#include "stm32f4xx.h"\nvoid led_on(void) { GPIOD->BSRR = 1u << 12; }\n'
            "int main(void) { led_on(); for (;;) { } }\n")
    _project(tmp_path, f"include = {[str(p) for p in inc]!r}\ndefines = [\"STM32F407xx\"]\n"
             "[misra]\nenabled = true\n", **{"main.c": body})
    result = analyze([tmp_path], load_config(start=tmp_path))
    misra = [f for f in result.findings if f.rule.startswith("MISRA")]
    assert not [f for f in result.findings if f.rule == "BG002"]
    assert misra and all(Path(f.location.file).parent == tmp_path for f in misra)


def test_vendor_sources_are_not_misra_checked(tmp_path: Path) -> None:
    cfg = Config(root=tmp_path, exclude=["Generated/**"])
    files = [str(tmp_path / p) for p in ("Src/main.c", "Drivers/STM32F4xx_HAL_Driver/Src/a.c",
                                         "Middlewares/x.c", "Generated/y.c", "Src/hal_template.c")]
    assert MisraRun(files, cfg).files == [files[0]]
    cfg.misra_vendor = True
    assert MisraRun(files, cfg).files == files


# -- C library, missing headers, excludes, the compile database --------------------------------
@pytest.mark.skipif(not (toolchain.c_library().include_dirs),
                    reason=f"no C library headers for the target: {toolchain.INSTALL_HINT}")
def test_the_c_library_is_found_so_string_h_parses(tmp_path: Path) -> None:
    body = ("#include <string.h>\n#include <stdio.h>\n#include <errno.h>\n"
            "int n(const char *s) { return (int)strlen(s) + errno; }\n")
    _project(tmp_path, **{"main.c": body})
    result = analyze([tmp_path], load_config(start=tmp_path))
    assert not [f.message for f in result.findings if f.rule == "BG000"]


def test_without_a_c_library_the_error_says_what_to_install(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("brickguard.frontend.c_library",
                        lambda configured=None: toolchain.CLibrary((), ""))
    _project(tmp_path, **{"main.c": "#include <string.h>\nint f(void) { return 0; }\n"})
    result = analyze([tmp_path], load_config(start=tmp_path))
    bg000 = [f.message for f in result.findings if f.rule == "BG000"]
    assert len(bg000) == 1 and toolchain.INSTALL_HINT in bg000[0]


def test_a_missing_header_is_reported_once_for_the_whole_run(tmp_path: Path) -> None:
    use = '#include "board_missing.h"\nvoid {name}(void) {{ BSP_LED_On(LED4); }}\n'
    _project(tmp_path, **{"a.c": use.format(name="a"), "b.c": use.format(name="b")})
    result = analyze([tmp_path], load_config(start=tmp_path))
    bg000 = [f for f in result.findings if f.rule == "BG000"]
    assert len(bg000) == 1 and "2 files miss it" in bg000[0].message
    assert len(bg000[0].related) == 1  # the other file's include line
    partial = [f for f in result.findings if f.rule == "BG002"]
    assert {Path(f.location.file).name for f in partial} == {"a.c", "b.c"}
    assert "a()" in partial[0].message or "b()" in partial[0].message


def test_exclude_globs() -> None:
    root = Path("/proj")
    globs = Globs(["Drivers/**", "**/*_template.c", "gen/"], root)
    assert globs.match("/proj/Drivers/STM32F4xx_HAL_Driver/Src/stm32f4xx_hal.c")
    assert globs.match("/proj/Core/Src/stm32f4xx_hal_msp_template.c")
    assert globs.match("/elsewhere/x_template.c")  # ** patterns apply outside the root too
    assert globs.match("/proj/gen/a/b.c")
    assert not globs.match("/proj/Core/Src/main.c") and not globs.match("/proj/MyDrivers/a.c")
    assert not Globs([], root) and not Globs([], root).match("/proj/a.c")


def test_exclude_applies_to_folders_not_to_files_named(tmp_path: Path) -> None:
    _project(tmp_path, **{"Src/main.c": CLEAN_C, "Drivers/hal.c": CLEAN_C, "x_template.c": ""})
    globs = Globs(["Drivers/**", "*_template.c"], tmp_path)
    assert [p.name for p in collect_sources([tmp_path], globs)] == ["main.c"]
    assert collect_sources([tmp_path / "Drivers/hal.c"], globs)  # asked for by name


def test_the_sdk_cache_is_never_written_into_the_source_tree(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from brickguard.sdk.cache import default_cache_dir

    monkeypatch.delenv("BRICKGUARD_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir(tmp_path / "project") == tmp_path / "xdg" / "brickguard" / "sdk"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache_dir() == tmp_path / "home" / ".cache" / "brickguard" / "sdk"


def test_a_long_run_shows_progress_on_stderr(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    import brickguard.analyze as pipeline

    monkeypatch.setattr(pipeline, "PROGRESS_AFTER_S", 0.0)
    monkeypatch.setattr(pipeline, "HEARTBEAT_S", 0.001)
    _project(tmp_path, **{"a.c": CLEAN_C, "b.c": CLEAN_C})
    analyze([tmp_path], load_config(start=tmp_path))
    err = capsys.readouterr().err
    assert f"brickguard: parsed 2/2 {tmp_path / 'b.c'}" in err and "brickguard: still " in err


def test_a_crash_in_one_files_analysis_is_a_finding_not_a_traceback(tmp_path, monkeypatch):
    """An internal error while reading one file's facts fails that file (BG000, error level, the
    exception named) and the run goes on over the others: never a traceback, never a pass."""
    from brickguard import frontend

    (tmp_path / "bad.c").write_text("int bad(void) { return 1; }\n")
    (tmp_path / "good.c").write_text("int good(void) { return 2; }\n")
    real = frontend.UnitContext.extract

    def extract(self):
        if self.main_file.endswith("bad.c"):
            raise ValueError("invalid literal for int() with base 0: '0020000'")
        return real(self)

    monkeypatch.setattr(frontend.UnitContext, "extract", extract)
    code, out, err = run("check", str(tmp_path), "--jobs", "1", "--select", "BG0")
    assert code == 1 and "Traceback" not in out + err, err
    assert "bad.c:1:1: BG000" in out and "analysis of this file failed (ValueError" in out
    assert "good.c" not in out and "in 2 files" in err
