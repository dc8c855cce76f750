"""The configuration: what the build looks like and which code runs where.

brickguard speaks Polyspace's words for concurrency: *entry points* (tasks), *interrupts*, and
*critical-section begin/end pairs* (routines that disable and re-enable interrupts). Everything has
a default that fits CMSIS / STM32 HAL / FreeRTOS / Zephyr / Linux-style code; a ``brickguard.toml``
changes it. ``load_config(start=dir)`` finds the file in ``dir`` or its parents. Paths in the file
are relative to the file's folder (``Config.root``).

```toml
[target]
triple = "thumbv7em-none-eabi"    # the clang target; code is parsed -ffreestanding
word_bits = 32                    # native word: wider objects can tear (BG103)
compiler = "arm-none-eabi-gcc"    # the target's compiler (a path or a command): its C library
                                  # headers and its macros (__GNUC__) for cppcheck; found if absent

[build]
include = ["include", "Drivers/Inc"]   # -I paths
defines = ["STM32F407xx", "USE_HAL_DRIVER=1"]
compile_commands = "build/compile_commands.json"   # when given, each file's own flags win
flags = ["-std=c11"]              # extra clang flags
resource_dir = "/usr/lib/llvm-14/lib/clang/14.0.6/include"   # stddef.h/stdint.h; found if absent
jobs = 0                          # parallel parser processes; 0 = one per CPU
exclude = ["Drivers/**", "**/*_template.c"]   # globs, relative to the project's root
root = "../firmware"              # the project's folder when this file lives elsewhere (default:
                                  # this file's folder); other paths stay relative to this file

[interrupts]                      # lists extend the defaults; replace = true replaces them
patterns = ["*_IRQHandler", "*_isr"]            # names of interrupt handlers (globs)
callbacks = ["HAL_*_*Callback"]                 # functions the HAL calls from its handlers
registrations = [{function = "request_irq", arg = 1}]   # arg: 0-based; -1 = last
from_asm = ["vTaskSwitchContext"]               # called from handlers written in assembly
start_off = ["main"]              # entry points that begin with no interrupt able to fire
enable = ["HAL_NVIC_EnableIRQ", "HAL_*_IT"]     # calls that may let an interrupt fire
line_enables = {SysTick_Config = "SysTick"}     # calls that let one line fire (its IRQ name)
quiet = ["lcd_*"]                 # undefined functions that never do (others are taken to)
priorities = {USART1_IRQHandler = 5, TIM2_IRQHandler = 1}   # lower preempts higher; else read
                                  # from HAL_NVIC_SetPriority/NVIC_SetPriority constants
replace = false

[tasks]                           # extend the defaults; replace = true replaces them
entries = ["main"]
creators = [{function = "xTaskCreate", arg = 0}]
callbacks = ["esp_event_handler_*"]   # calls whose callback runs in a thread, not an interrupt
deferrals = ["*_defer_*"]   # starts a thread or queues for one (calls whose words say nothing)
replace = false

[critical]                        # begin/end pairs; extend the defaults; replace = true
pairs = [["__disable_irq", "__enable_irq"], ["my_lock", "my_unlock"]]
masks = [["HAL_NVIC_DisableIRQ", "HAL_NVIC_EnableIRQ"]]   # mask/unmask one IRQn (argument 0)
handover = ["xPortStartScheduler"]   # calls that take open sections over (scheduler start)
levels = {my_enter = "MY_BASEPRI"}   # enters that mask only priorities >= a BASEPRI value
basepri = ["__set_BASEPRI"]       # calls that set BASEPRI to their argument (0 unmasks)
replace = false

[target]                          # (continued) the chip: BG3xx (chip/)
mcu = "STM32F407VGTx"             # ST's part name; else read from a CubeMX .ioc in the project
pin_data = "../shared/firmware/pins/stm32"   # the vendor's pin data (ST: STM32_open_pin_data)
vendor = "st"                     # whose pin-data format pin_data is
vdd_mv = 3300                     # the supply: the flash wait states depend on it (BG311)
hse_hz = 8000000                  # the crystal, when HSE_VALUE is not visible to the parser

[stack]                           # BG510-BG512: worst-case stack depth with -fstack-usage
enabled = true                    # false: not checked (then nothing is reported)
gcc = "arm-none-eabi-gcc"         # the cross compiler (default: found on PATH)
flags = ["-O2"]                   # its flags besides the project's -I/-D (default -O0 -mcpu=...)
main_stack = 1024                 # bytes; default: the linker script's _Min_Stack_Size,
linker_script = "STM32F407VGTX_FLASH.ld"   # __stack_size__ or .stack section (found if absent)

[target]                          # (continued) platform profiles: see profiles.py
profile = "freertos"              # or a list, e.g. ["cmsis", "freertos"]; default: all built in
profile_files = ["my_rtos.toml"]  # extra profile files with the same layout

[interrupts]                      # (continued) calls never to make from an interrupt handler
blocking = ["flash_erase_sector"] # may block or wait (BG110)
unsafe = ["lcd_draw"]             # not interrupt-safe for another reason (BG110)
nonreentrant = ["fmt_number"]     # keep state between calls (BG112)

[dma]                             # BG501/BG502
dcache = true                     # default: true when the flags say -mcpu=cortex-m7 (or m55/m85)
cache_line = 32
tx = [{function = "my_dma_send", arg = 0}]        # extends the profile's DMA start calls
rx = [{function = "my_dma_recv", arg = 0}]
clean = [{function = "my_cache_clean", arg = 0}]  # by-address cache maintenance
invalidate = [{function = "my_cache_inval", arg = 0}]
clean_all = ["my_cache_clean_all"]
invalidate_all = ["my_cache_inval_all"]

[misra]                           # MISRA C:2012 through cppcheck's misra addon
enabled = true                    # or `brickguard check --misra`
cppcheck = "cppcheck"             # the executable
flags = ["--suppress=misra-c2012-2.5"]   # extra cppcheck arguments
vendor = false                    # also report MISRA in vendor/RTOS code (Drivers/, CMSIS, ...)

[soak]                            # `brickguard soak`: see soak/settings.py for every key
scenario = "main"

[demos]                           # BG4xx: the vendor's example projects (brickguard demos)
folders = ["vendor/Projects/STM32F4-Discovery/Examples"]   # mined (and cached) when checked
index = "DEMOS.json"              # or a prebuilt index (brickguard demos index --out)
min_support = 3                   # examples that must agree before a rule is kept
search = ["vendor/Drivers"]       # where else the SDK's headers are (default: beside folders)

[rules]
select = ["BG1"]                  # rule ids or prefixes; default: all
ignore = ["BG104"]
fail_on = "warning"               # note | warning | error | never
baseline = "brickguard-baseline.json"
fail_on_skip = true               # exit 1 when an analysis did not run (BG002); default: in CI
```

An exit routine closes the most recent open section it pairs with, and every section opened after
it: ``m = __get_PRIMASK(); __disable_irq(); ...; __set_PRIMASK(m);`` is one balanced section.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from brickguard.demos.model import DEFAULT_MIN_SUPPORT, DemosSpec
from brickguard.errors import ConfigError
from brickguard.findings import FALLBACK, NOT_RUN, FailOn
from brickguard.profiles import (
    CriticalPairs,
    DmaCalls,
    InterruptEntries,
    Platform,
    Registration,
    TaskEntries,
    add_dma_calls,
    default_entries,
    default_platform,
    load_platform,
)
from brickguard.rule_ids import checked_ids
from brickguard.sdk.spec import SdkSpec, SdkTable, specs_from_config
from brickguard.soak.settings import SoakTable
from brickguard.tables import checked, from_mapping

CONFIG_NAME = "brickguard.toml"
GATE_NOTES = (NOT_RUN, FALLBACK)  # reported whatever select says (Config.reports)
__all__ = ["Config", "Registration", "config_from_dict", "load_config"]

DEFAULT_INTERRUPT_PATTERNS = [
    "*_IRQHandler",
    "*_isr",
    "*_ISR",
    "isr_*",
    "SysTick_Handler",
    "PendSV_Handler",
    *default_entries().patterns,
]
# The HAL calls these from inside its IRQ handlers, so they run in interrupt context.
DEFAULT_INTERRUPT_CALLBACKS = ["HAL_*_*Callback", "HAL_*_Callback"]
DEFAULT_INTERRUPT_REGISTRATIONS = [
    Registration("request_irq", 1),
    Registration("request_threaded_irq", 1),
    Registration("devm_request_irq", 2),
    Registration("HAL_*_RegisterCallback", -1),
    Registration("NVIC_SetVector", 1),
    Registration("irq_connect_dynamic", 2, irq=0, flags=4, unmasked="IRQ_ZERO_LATENCY"),
    Registration("attachInterrupt", 1),
    *default_entries().registrations,  # the vendor SDK tables (profiles with defaults = true)
]
DEFAULT_TASK_ENTRIES = ["main", "Reset_Handler"]
DEFAULT_TASK_CREATORS = [
    Registration("xTaskCreate", 0),
    Registration("xTaskCreateStatic", 0),
    Registration("osThreadNew", 0),
    Registration("osThreadCreate", 0),
    Registration("k_thread_create", 2),
    Registration("pthread_create", 2),
]
DEFAULT_CRITICAL_SECTIONS = [
    ("__disable_irq", "__enable_irq"),
    ("__get_PRIMASK", "__set_PRIMASK"),
    ("taskENTER_CRITICAL", "taskEXIT_CRITICAL"),
    ("taskENTER_CRITICAL_FROM_ISR", "taskEXIT_CRITICAL_FROM_ISR"),
    ("portENTER_CRITICAL", "portEXIT_CRITICAL"),
    ("vPortEnterCritical", "vPortExitCritical"),
    ("portDISABLE_INTERRUPTS", "portENABLE_INTERRUPTS"),
    ("irq_lock", "irq_unlock"),
    ("spin_lock_irqsave", "spin_unlock_irqrestore"),
    ("local_irq_save", "local_irq_restore"),
    ("local_irq_disable", "local_irq_enable"),
    ("__disable_interrupt", "__enable_interrupt"),
    ("noInterrupts", "interrupts"),
    ("cli", "sei"),
    *default_entries().pairs,
]


@dataclass
class Config:
    root: Path
    target: str = "thumbv7em-none-eabi"
    include: list[Path] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    compile_commands: Path | None = None
    extra_flags: list[str] = field(default_factory=list)
    word_bits: int = 32
    interrupt_patterns: list[str] = field(default_factory=lambda: list(DEFAULT_INTERRUPT_PATTERNS))
    interrupt_callbacks: list[str] = field(
        default_factory=lambda: list(DEFAULT_INTERRUPT_CALLBACKS)
    )
    interrupt_registrations: list[Registration] = field(
        default_factory=lambda: list(DEFAULT_INTERRUPT_REGISTRATIONS)
    )
    task_entries: list[str] = field(default_factory=lambda: list(DEFAULT_TASK_ENTRIES))
    # Interrupt handler name -> preemption priority (lower preempts higher; equal ones do not).
    interrupt_priorities: dict[str, int] = field(default_factory=dict)
    task_creators: list[Registration] = field(default_factory=lambda: list(DEFAULT_TASK_CREATORS))
    critical_sections: list[tuple[str, str]] = field(
        default_factory=lambda: list(DEFAULT_CRITICAL_SECTIONS)
    )
    select: list[str] = field(default_factory=list)  # empty = all rules
    ignore: list[str] = field(default_factory=list)
    fail_on: FailOn = "warning"
    baseline: Path | None = None
    jobs: int = 0  # 0 = one process per CPU
    resource_dir: Path | None = None
    source: Path | None = None  # the brickguard.toml read, if any (for messages)
    sdks: list[SdkSpec] = field(default_factory=list)  # [sdk] / [[sdk]]: BG2xx; see sdk/spec.py
    # Platform profiles (profiles.py): the API facts BG110-BG112 and BG501/BG502 look up.
    platform: Platform = field(default_factory=default_platform)
    dcache: bool | None = None  # None: from the target (-mcpu=cortex-m7/m55/m85 have one)
    cache_line: int = 32
    misra: bool = False  # run cppcheck's MISRA C:2012 addon too
    cppcheck: str = "cppcheck"
    misra_flags: list[str] = field(default_factory=list)
    misra_vendor: bool = False  # MISRA findings in vendor/RTOS code too (misra.VENDOR_GLOBS)
    exclude: list[str] = field(default_factory=list)  # [build] exclude globs (root-relative)
    fail_on_skip: bool | None = None  # None: on in CI mode (cli_check.ci_mode)
    compiler: str | None = None  # [target] compiler; None: toolchain.find_gcc()'s default
    soak: SoakTable | None = None  # [soak]: what `brickguard soak` runs (soak/settings.py)
    # [demos]: the vendor examples (folders or a prebuilt index) the BG4xx rules learn from.
    demos: DemosSpec | None = None
    collect_uses: bool = False  # the front end records API uses (set by [demos] and the miner)
    uses_only: bool = False  # ... and nothing else (the demo miner)
    # The chip (BG3xx): the part, where its pin data is, the supply; see chip/.
    mcu: str | None = None
    mcu_source: str = ""  # where the part name came from: "brickguard.toml", "x.ioc"
    pin_data: Path | None = None
    vendor: str = "st"
    vdd_mv: int = 3300
    hse_hz: int | None = None
    # Stack depth (BG510-BG512): see stack.py.
    stack: bool = True
    stack_gcc: str | None = None
    stack_flags: list[str] | None = None
    main_stack: int | None = None
    linker_script: Path | None = None

    def has_dcache(self) -> bool:
        """Whether the target has a data cache that DMA bypasses (BG501/BG502 apply)."""
        if self.dcache is not None:
            return self.dcache
        text = " ".join([self.target, *self.extra_flags]).lower()
        return any(cpu in text for cpu in ("cortex-m7", "cortex-m55", "cortex-m85"))

    def reports(self, rule_id: str) -> bool:
        """Whether findings of this rule are reported: enabled, or one of the gate's own notes
        (what did not run, BG002, and set-up fallbacks, BG003), which ``select`` cannot drop;
        only an ``ignore`` that names one exactly silences it."""
        if rule_id in GATE_NOTES:
            return rule_id not in self.ignore
        return self.rule_enabled(rule_id)

    def rule_enabled(self, rule_id: str) -> bool:
        """Selected (by id or prefix; nothing selected = all) and not ignored."""
        selected = not self.select or any(rule_id.startswith(s) for s in self.select)
        return selected and not any(rule_id.startswith(s) for s in self.ignore)


# -- the layout of brickguard.toml: one dataclass per table (tables.from_mapping reads them) -------
# A field left at None (or empty) keeps Config's default; lists extend the defaults unless the
# table says replace = true.
@dataclass(frozen=True)
class TargetTable:
    triple: str | None = None
    word_bits: Literal[8, 16, 32, 64] | None = None
    profile: str | list[str] | None = None
    profile_files: list[str] = field(default_factory=list)
    compiler: str | None = None
    mcu: str | None = None
    pin_data: str | None = None
    vendor: Literal["st"] = "st"
    vdd_mv: int = checked(lambda n: 1700 <= n <= 3600, "a supply in mV, 1700 to 3600",
                          default=3300)
    hse_hz: int | None = checked(lambda n: n > 0, "a frequency in Hz", default=None)


@dataclass(frozen=True)
class StackTable:
    enabled: bool = True
    gcc: str | None = None
    flags: list[str] | None = None
    main_stack: int | None = checked(lambda n: n > 0, "a size in bytes", default=None)
    linker_script: str | None = None


@dataclass(frozen=True)
class BuildTable:
    include: list[str] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    compile_commands: str | None = None
    flags: list[str] = field(default_factory=list)
    resource_dir: str | None = None
    jobs: int = checked(lambda n: n >= 0, "0 (one per CPU) or more", default=0)
    exclude: list[str] = field(default_factory=list)
    root: str | None = None


@dataclass(frozen=True)
class InterruptsTable(InterruptEntries):
    priorities: dict[str, int] = field(default_factory=dict)
    blocking: list[str] = field(default_factory=list)
    unsafe: list[str] = field(default_factory=list)
    nonreentrant: list[str] = field(default_factory=list)
    replace: bool = False


@dataclass(frozen=True)
class TasksTable(TaskEntries):
    entries: list[str] = field(default_factory=list)
    replace: bool = False


@dataclass(frozen=True)
class CriticalTable(CriticalPairs):
    replace: bool = False


@dataclass(frozen=True)
class DmaTable(DmaCalls):
    dcache: bool | None = None
    cache_line: int | None = checked(lambda n: n > 0 and not n & (n - 1),
                                     "a power of two, e.g. 32", default=None)


@dataclass(frozen=True)
class MisraTable:
    enabled: bool = False
    cppcheck: str | None = None
    flags: list[str] = field(default_factory=list)
    vendor: bool = False


@dataclass(frozen=True)
class RulesTable:
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    fail_on: FailOn | None = None
    baseline: str | None = None
    fail_on_skip: bool | None = None


@dataclass(frozen=True)
class DemosTable:
    folders: list[str] = field(default_factory=list)
    index: str | None = None
    search: list[str] = field(default_factory=list)
    min_support: int = checked(lambda n: n >= 2, "2 or more", default=DEFAULT_MIN_SUPPORT)


@dataclass(frozen=True)
class ConfigFile:
    target: TargetTable = field(default_factory=TargetTable)
    build: BuildTable = field(default_factory=BuildTable)
    interrupts: InterruptsTable = field(default_factory=InterruptsTable)
    tasks: TasksTable = field(default_factory=TasksTable)
    critical: CriticalTable = field(default_factory=CriticalTable)
    dma: DmaTable = field(default_factory=DmaTable)
    misra: MisraTable = field(default_factory=MisraTable)
    stack: StackTable = field(default_factory=StackTable)
    rules: RulesTable = field(default_factory=RulesTable)
    sdk: SdkTable | list[SdkTable] | None = None  # [sdk] or [[sdk]]: see sdk/spec.py
    soak: SoakTable | None = None  # see soak/settings.py
    demos: DemosTable | None = None  # [demos]: see demos/


def load_config(path: Path | None = None, start: Path | None = None) -> Config:
    """Read ``path``; or, with no path, the first brickguard.toml in ``start`` or its parents.

    With no file anywhere the defaults apply and ``root`` is ``start`` (or the working folder).
    """
    if path is not None:
        path = Path(path)
        if not path.is_file():
            raise ConfigError(f"{path}: configuration file not found")
        return _from_file(path)
    here = Path(start if start is not None else Path.cwd()).resolve()
    if here.is_file():
        here = here.parent
    for folder in (here, *here.parents):
        candidate = folder / CONFIG_NAME
        if candidate.is_file():
            return _from_file(candidate)
    cfg = Config(root=here)
    _chip(cfg, TargetTable(), lambda p: Path(p))
    return cfg


def _from_file(path: Path) -> Config:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    return config_from_dict(data, root=path.resolve().parent, source=path)


def config_from_dict(data: dict[str, Any], root: Path, source: Path | None = None) -> Config:
    """Build a Config from parsed TOML; every key is checked, unknown ones are errors."""
    where = str(source) if source is not None else CONFIG_NAME
    file = from_mapping(ConfigFile, data, where)

    def rel(p: str) -> Path:
        return (root / p).resolve() if not Path(p).is_absolute() else Path(p)

    def merged(table: InterruptsTable | TasksTable | CriticalTable, extra: list,
               default: list) -> list:
        return list(extra) if table.replace else [*default, *extra]

    target, build, rules = file.target, file.build, file.rules
    cfg = Config(root=root, source=source)
    cfg.target = target.triple if target.triple is not None else cfg.target
    cfg.word_bits = target.word_bits or cfg.word_bits
    cfg.include = [rel(p) for p in build.include]
    cfg.defines = list(build.defines)
    cfg.compile_commands = rel(build.compile_commands) if build.compile_commands else None
    cfg.extra_flags = list(build.flags)
    cfg.resource_dir = rel(build.resource_dir) if build.resource_dir else None
    cfg.jobs = build.jobs
    cfg.exclude = list(build.exclude)
    cfg.compiler = target.compiler
    _platform(cfg, file, rel, where)
    ints, tasks, crit = file.interrupts, file.tasks, file.critical
    cfg.interrupt_patterns = merged(ints, ints.patterns, cfg.interrupt_patterns)
    cfg.interrupt_callbacks = merged(ints, ints.callbacks, cfg.interrupt_callbacks)
    cfg.interrupt_registrations = merged(ints, ints.registrations, cfg.interrupt_registrations)
    cfg.interrupt_priorities = dict(ints.priorities)
    cfg.task_entries = merged(tasks, tasks.entries, cfg.task_entries)
    cfg.task_creators = merged(tasks, tasks.creators, cfg.task_creators)
    cfg.critical_sections = merged(crit, crit.pairs, cfg.critical_sections)
    cfg.select = checked_ids(rules.select, f"{where}: [rules] select")
    cfg.ignore = checked_ids(rules.ignore, f"{where}: [rules] ignore")
    cfg.fail_on_skip = rules.fail_on_skip
    cfg.fail_on = rules.fail_on or cfg.fail_on
    cfg.baseline = rel(rules.baseline) if rules.baseline else None
    cfg.misra = file.misra.enabled
    cfg.cppcheck = file.misra.cppcheck if file.misra.cppcheck is not None else cfg.cppcheck
    cfg.misra_flags = list(file.misra.flags)
    cfg.misra_vendor = file.misra.vendor
    _chip(cfg, target, rel)
    st = file.stack
    cfg.stack, cfg.stack_gcc, cfg.stack_flags = st.enabled, st.gcc, st.flags
    cfg.main_stack = st.main_stack
    cfg.linker_script = rel(st.linker_script) if st.linker_script else None
    cfg.sdks = specs_from_config(file.sdk, root, where) if file.sdk is not None else []
    cfg.soak = file.soak
    if file.demos is not None:
        d = file.demos
        if not d.folders and not d.index:
            raise ConfigError(f"{where}: [demos]: give folders (example projects) or index "
                              "(a DEMOS.json from brickguard demos index)")
        cfg.demos = DemosSpec(tuple(rel(f) for f in d.folders),
                              rel(d.index) if d.index else None, d.min_support,
                              tuple(rel(f) for f in d.search))
        cfg.collect_uses = True
    for spec in cfg.sdks:  # the target SDK's headers are on the project's include path
        if spec.target:
            cfg.include += [p for p in spec.include if p not in cfg.include]
    if build.root is not None:
        cfg.root = rel(build.root)
        if not cfg.root.is_dir():
            raise ConfigError(f"{where}: [build] root: {cfg.root} is not a folder")
    return cfg


def _platform(cfg: Config, file: ConfigFile, rel: Callable[[str], Path], where: str) -> None:
    """Load the selected profiles into ``cfg.platform``; add their entry points and critical
    sections to the defaults (which the [interrupts]/[tasks]/[critical] tables then extend)."""
    chosen = file.target.profile
    names = [chosen] if isinstance(chosen, str) else chosen
    files = [rel(p) for p in file.target.profile_files]
    try:
        plat = load_platform(names, files, cfg.root)
    except ConfigError as exc:
        raise ConfigError(f"{where}: [target] profile: {exc}") from None
    if names is not None or files:
        extend = [
            (cfg.interrupt_patterns, plat.interrupt_patterns),
            (cfg.interrupt_callbacks, plat.interrupt_callbacks),
            (cfg.interrupt_registrations, plat.interrupt_registrations),
            (cfg.task_creators, plat.task_creators),
            (cfg.critical_sections, plat.critical_pairs),
        ]
        for into, items in extend:
            into.extend(i for i in items if i not in into)
    ints = file.interrupts
    for listed, why in ((ints.blocking, "blocks"), (ints.unsafe, "unsafe")):
        for name in listed:
            plat.blocking[name] = why
    for name in ints.nonreentrant:
        plat.nonreentrant.setdefault(name, "")
    crit, tasks = file.critical, file.tasks
    for table, into, items in (
        (tasks, plat.task_callbacks, tasks.callbacks),
        (tasks, plat.task_deferrals, tasks.deferrals),
        (ints, plat.from_asm, ints.from_asm), (ints, plat.start_off, ints.start_off),
        (ints, plat.interrupt_enables, ints.enable), (ints, plat.quiet, ints.quiet),
        (ints, plat.priority_setters, ints.priority_setters),
        (ints, plat.priority_grouping, ints.priority_grouping),
        (crit, plat.critical_handover, crit.handover), (crit, plat.critical_masks, crit.masks),
        (crit, plat.basepri, crit.basepri),
    ):
        if table.replace:
            into.clear()
        into.extend(i for i in items if i not in into)
    for table, into_map, items_map in ((ints, plat.line_enables, ints.line_enables),
                                       (crit, plat.critical_levels, crit.levels)):
        if table.replace:
            into_map.clear()
        into_map.update(items_map)
    add_dma_calls(plat, file.dma)
    cfg.platform = plat
    cfg.dcache = file.dma.dcache
    cfg.cache_line = file.dma.cache_line or cfg.cache_line


PIN_DATA_ENV = "BRICKGUARD_PIN_DATA"  # the pin-data folder when [target] pin_data is not given


def _chip(cfg: Config, target: TargetTable, rel: Callable[[str], Path]) -> None:
    """The part: [target] mcu, else the Mcu.UserName / Mcu.Name of a CubeMX .ioc file in the
    project (its folder or one level below); the pin data: [target] pin_data, else
    $BRICKGUARD_PIN_DATA."""
    cfg.vendor, cfg.vdd_mv, cfg.hse_hz = target.vendor, target.vdd_mv, target.hse_hz
    if target.mcu:
        cfg.mcu, cfg.mcu_source = target.mcu, str(cfg.source or CONFIG_NAME)
    else:
        found = find_ioc_mcu(cfg.root)
        if found is not None:
            cfg.mcu, cfg.mcu_source = found
    if target.pin_data:
        cfg.pin_data = rel(target.pin_data)
    elif os.environ.get(PIN_DATA_ENV):
        cfg.pin_data = Path(os.environ[PIN_DATA_ENV])


def find_ioc_mcu(root: Path) -> tuple[str, str] | None:
    """(part name, the .ioc file) from an STM32CubeMX project file: ``Mcu.UserName`` (the
    full part, STM32F407VGTx) or else ``Mcu.Name`` (the description's name)."""
    try:
        candidates = sorted(root.glob("*.ioc")) + sorted(root.glob("*/*.ioc"))
    except OSError:
        return None
    for ioc in candidates:
        try:
            text = ioc.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        keys = dict(line.split("=", 1) for line in text.splitlines() if "=" in line)
        name = keys.get("Mcu.UserName") or keys.get("Mcu.Name")
        if name:
            return name.strip(), str(ioc)
    return None
