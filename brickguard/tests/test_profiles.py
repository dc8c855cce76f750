"""Platform profiles: the data files, their selection in brickguard.toml, user extensions, and
the call chains BG110 reports."""

from __future__ import annotations

from pathlib import Path

import pytest
from builders import fixture_config
from typer.testing import CliRunner

from brickguard.analyze import analyze
from brickguard.cli import app
from brickguard.cli_check import run_analysis
from brickguard.config import Config, load_config
from brickguard.errors import ConfigError
from brickguard.profiles import builtin_profiles, load_platform
from brickguard.report import render_sarif

CASES = Path(__file__).parent / "cases"
ISR = """
void flash_erase(int sector);
void lcd_draw(int x);
void EXTI0_IRQHandler(void) { flash_erase(1); lcd_draw(2); }
int main(void) { flash_erase(1); return 0; }
"""


def test_every_platform_has_a_profile() -> None:
    assert set(builtin_profiles()) == {
        "cmsis", "freertos", "zephyr", "rtthread", "cmsis-rtos2", "linux",
        "nxp-mcux", "ti-driverlib", "nordic-nrfx", "harmony",
    }
    for name in builtin_profiles():
        plat = load_platform([name])
        assert plat.blocking, name  # each says what blocks
        assert "malloc" in plat.blocking and "strtok" in plat.nonreentrant  # common is loaded


def test_freertos_lists_the_real_from_isr_api() -> None:
    plat = load_platform(["freertos"])
    from_isr = {n for n in plat.interrupt_safe if n.endswith("FromISR")}
    assert len(from_isr) >= 45
    assert {"xQueueSendFromISR", "xSemaphoreGiveFromISR", "vTaskNotifyGiveFromISR"} <= from_isr
    for task, twin in plat.isr_variants.items():
        assert twin in plat.interrupt_safe, (task, twin)
        assert task not in plat.interrupt_safe


def test_selecting_a_profile_extends_the_defaults_and_narrows_the_api(tmp_path: Path) -> None:
    (tmp_path / "brickguard.toml").write_text('[target]\nprofile = "freertos"\n')
    cfg = load_config(start=tmp_path)
    assert ("taskENTER_CRITICAL", "taskEXIT_CRITICAL") in cfg.critical_sections
    # the scheduler lock stops other tasks only: interrupts still run, so it is no section
    assert ("vTaskSuspendAll", "xTaskResumeAll") not in cfg.critical_sections
    assert ("__disable_irq", "__enable_irq") in cfg.critical_sections  # defaults kept
    assert any(r.function == "xTimerCreate" for r in cfg.task_creators)
    assert "vTaskDelay" in cfg.platform.blocking and "k_sleep" not in cfg.platform.blocking
    assert "k_sleep" in Config(root=tmp_path).platform.blocking  # no profile: all of them


def test_vendor_sdk_tables_join_the_defaults(tmp_path: Path) -> None:
    """The vendor SDKs' masking and registration calls hold with no profile chosen, and with
    another profile chosen; k_sched_lock (threads only) is no section against interrupts."""
    for cfg in (Config(root=tmp_path), _with_profile(tmp_path, "cmsis")):
        pairs = set(cfg.critical_sections)
        assert {("DisableGlobalIRQ", "EnableGlobalIRQ"), ("Interrupt_disableMaster",
                "Interrupt_enableMaster"), ("SYS_INT_Disable", "SYS_INT_Restore"),
                ("app_util_critical_region_enter", "app_util_critical_region_exit"),
                ("k_spin_lock", "k_spin_unlock")} <= pairs
        assert not any("k_sched_lock" in p for p in pairs)
        regs = {r.function for r in cfg.interrupt_registrations}
        assert {"*_TransferCreateHandle", "nrfx_uarte_init", "*_CallbackRegister",
                "Interrupt_registerInterrupt", "uart_irq_callback_set"} <= regs
    plat = load_platform(None)
    assert ["DisableIRQ", "EnableIRQ"] in [list(m) for m in plat.critical_masks]
    assert "Interrupt_setPriorityMask" in plat.basepri
    assert plat.critical_levels["irq_lock"] == "_EXC_IRQ_DEFAULT_PRIO"


def test_a_call_is_read_by_its_words_for_a_handler() -> None:
    from brickguard.callbacks import says_interrupt

    assert says_interrupt("acme_timer_init handler acme_timer_handler_t")
    assert says_interrupt("uart_irq_callback_set cb uart_irq_callback_t")
    assert says_interrupt("foo_attach isr_fn void (*)(void)")
    assert not says_interrupt("ui_obj_add_event_cb event_cb ui_event_cb_t")  # adds, sets nothing up
    assert not says_interrupt("qsort compar int (*)(const void *, const void *)")
    assert not says_interrupt("list_init node_fn node_fn_t")


def _with_profile(tmp_path: Path, name: str) -> Config:
    (tmp_path / "brickguard.toml").write_text(f'[target]\nprofile = "{name}"\n')
    return load_config(start=tmp_path)


def test_unknown_or_broken_profiles_are_clear_errors(tmp_path: Path) -> None:
    (tmp_path / "brickguard.toml").write_text('[target]\nprofile = "freertoss"\n')
    with pytest.raises(ConfigError, match="unknown profile 'freertoss'.*freertos"):
        load_config(start=tmp_path)
    (tmp_path / "mine.toml").write_text('[api]\nblocks = "flash_erase"\n')
    (tmp_path / "brickguard.toml").write_text('[target]\nprofile_files = ["mine.toml"]\n')
    with pytest.raises(ConfigError, match="blocks: must be a list"):
        load_config(start=tmp_path)
    (tmp_path / "brickguard.toml").write_text("[dma]\ncache_line = 48\n")
    with pytest.raises(ConfigError, match="power of two"):
        load_config(start=tmp_path)


def test_user_profile_file_and_config_keys_add_unsafe_calls(tmp_path: Path) -> None:
    (tmp_path / "isr.c").write_text(ISR)
    (tmp_path / "brickguard.toml").write_text('[target]\nprofile = "cmsis"\n')
    found = analyze([tmp_path / "isr.c"], load_config(start=tmp_path)).findings
    assert not [f for f in found if f.rule == "BG110"]
    (tmp_path / "board.toml").write_text('name = "board"\n[api]\nblocks = ["flash_erase"]\n')
    (tmp_path / "brickguard.toml").write_text(
        '[target]\nprofile = "cmsis"\nprofile_files = ["board.toml"]\n'
        '[interrupts]\nunsafe = ["lcd_draw"]\n'
    )
    found = analyze([tmp_path / "isr.c"], load_config(start=tmp_path)).findings
    lines = sorted((f.location.line, f.message.split("(")[0]) for f in found if f.rule == "BG110")
    assert [n for n, _ in lines] == [4, 4]
    assert {m.split()[0] for _, m in lines} == {"flash_erase", "lcd_draw"}


def test_dcache_follows_the_target_unless_configured(tmp_path: Path) -> None:
    assert not Config(root=tmp_path).has_dcache()
    assert Config(root=tmp_path, extra_flags=["-mcpu=cortex-m7"]).has_dcache()
    assert not Config(root=tmp_path, extra_flags=["-mcpu=cortex-m7"], dcache=False).has_dcache()


def test_bg110_flow_is_the_call_chain_in_sarif() -> None:
    case = CASES / "bg110" / "chain.c"
    cfg = fixture_config(case.parent)
    report = run_analysis([case], cfg)
    sarif = render_sarif(report)["runs"][0]
    printf = next(r for r in sarif["results"] if r["ruleId"] == "BG110" and "printf" in
                  r["message"]["text"])
    steps = printf["codeFlows"][0]["threadFlows"][0]["locations"]
    texts = [s["location"]["message"]["text"] for s in steps]
    assert texts[0].startswith("EXTI0_IRQHandler")
    assert texts[1:3] == ["calls debounce()", "calls log_event()"]
    assert texts[-1].startswith("printf()")
    assert "EXTI0_IRQHandler -> debounce -> log_event -> printf()" in printf["message"]["text"]
    ids = {r["id"] for r in sarif["tool"]["driver"]["rules"]}
    assert {"BG110", "BG111", "BG112", "BG501", "BG502"} <= ids


@pytest.mark.parametrize("rule", ["BG110", "BG111", "BG112", "BG501", "BG502"])
def test_explain_new_rules(rule: str) -> None:
    out = CliRunner().invoke(app, ["explain", rule])
    assert out.exit_code == 0 and out.stdout.startswith(f"{rule}: ")
    assert "Example (bad)" in out.stdout


@pytest.mark.parametrize("text", [
    '[critical]\npairs = [["a"]]\n',
    '[tasks]\ncreators = [{function = "f"}]\n',
    '[dma]\ntx = ["HAL_UART_Transmit_DMA"]\n',
    '[api.isr_variants]\nxQueueSend = 1\n',
    'colour = "blue"\n',
])
def test_malformed_profile_files_are_config_errors(tmp_path: Path, text: str) -> None:
    (tmp_path / "p.toml").write_text(text)
    with pytest.raises(ConfigError, match="p.toml"):
        load_platform([], [tmp_path / "p.toml"])


CORES = """
void start_second_core(void (*entry)(void));
unsigned ipc_mutex_acquire(int id);
void ipc_mutex_free(int id, unsigned saved);
void report(unsigned n);
volatile unsigned count;
static void other(void) { for (;;) { unsigned s = ipc_mutex_acquire(1); count++;
    ipc_mutex_free(1, s); } }
int main(void) { start_second_core(other);
    for (;;) { unsigned s = ipc_mutex_acquire(1); unsigned n = count; count = 0u;
        ipc_mutex_free(1, s); report(n); } }
"""


def test_a_user_profile_names_the_cross_core_locks(tmp_path: Path) -> None:
    """``[cores]`` is data: a lock the built-in globs do not know races until a profile file
    names it; the launch (``*second_core*``) is the built-in table's."""
    (tmp_path / "cores.c").write_text(CORES)
    (tmp_path / "brickguard.toml").write_text('[target]\nprofile = "cmsis"\n')
    found = analyze([tmp_path / "cores.c"], load_config(start=tmp_path)).findings
    assert [f.location.line for f in found if f.rule.startswith("BG10")] == [10]
    (tmp_path / "ipc.toml").write_text(
        'name = "ipc"\n[cores]\nlocks = ["IPC_MUTEX_ACQUIRE"]\nunlocks = ["ipc_mutex_free"]\n')
    (tmp_path / "brickguard.toml").write_text(
        '[target]\nprofile = "cmsis"\nprofile_files = ["ipc.toml"]\n')
    found = analyze([tmp_path / "cores.c"], load_config(start=tmp_path)).findings
    assert not [f for f in found if f.rule.startswith("BG10")]
