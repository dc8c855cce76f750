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

[build]
include = ["include", "Drivers/Inc"]   # -I paths
defines = ["STM32F407xx", "USE_HAL_DRIVER=1"]
compile_commands = "build/compile_commands.json"   # when given, each file's own flags win
flags = ["-std=c11"]              # extra clang flags
resource_dir = "/usr/lib/llvm-14/lib/clang/14.0.6/include"   # stddef.h/stdint.h; found if absent
jobs = 0                          # parallel parser processes; 0 = one per CPU

[interrupts]                      # lists extend the defaults; replace = true replaces them
patterns = ["*_IRQHandler", "*_isr"]            # names of interrupt handlers (globs)
callbacks = ["HAL_*_*Callback"]                 # functions the HAL calls from its handlers
registrations = [{function = "request_irq", arg = 1}]   # arg: 0-based; -1 = last
replace = false

[tasks]                           # extend the defaults; replace = true replaces them
entries = ["main"]
creators = [{function = "xTaskCreate", arg = 0}]
replace = false

[critical]                        # begin/end pairs; extend the defaults; replace = true
pairs = [["__disable_irq", "__enable_irq"], ["my_lock", "my_unlock"]]
replace = false

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

[rules]
select = ["BG1"]                  # rule ids or prefixes; default: all
ignore = ["BG104"]
fail_on = "warning"               # note | warning | error | never
baseline = "brickguard-baseline.json"
```

An exit routine closes the most recent open section it pairs with, and every section opened after
it: ``m = __get_PRIMASK(); __disable_irq(); ...; __set_PRIMASK(m);`` is one balanced section.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from brickguard.errors import ConfigError
from brickguard.profiles import Platform, default_platform, load_platform
from brickguard.sdk.spec import SdkSpec, specs_from_config

CONFIG_NAME = "brickguard.toml"
FAIL_ON = ("note", "warning", "error", "never")


@dataclass(frozen=True)
class Registration:
    """A call that hands a function to the interrupt system or the scheduler."""

    function: str  # glob on the called function's name, e.g. "HAL_*_RegisterCallback"
    arg: int  # 0-based index of the argument that names the function; -1 = the last one


DEFAULT_INTERRUPT_PATTERNS = [
    "*_IRQHandler",
    "*_isr",
    "*_ISR",
    "isr_*",
    "SysTick_Handler",
    "PendSV_Handler",
]
# The HAL calls these from inside its IRQ handlers, so they run in interrupt context.
DEFAULT_INTERRUPT_CALLBACKS = ["HAL_*_*Callback", "HAL_*_Callback"]
DEFAULT_INTERRUPT_REGISTRATIONS = [
    Registration("request_irq", 1),
    Registration("request_threaded_irq", 1),
    Registration("devm_request_irq", 2),
    Registration("HAL_*_RegisterCallback", -1),
    Registration("NVIC_SetVector", 1),
    Registration("irq_connect_dynamic", 2),
    Registration("attachInterrupt", 1),
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
    task_creators: list[Registration] = field(default_factory=lambda: list(DEFAULT_TASK_CREATORS))
    critical_sections: list[tuple[str, str]] = field(
        default_factory=lambda: list(DEFAULT_CRITICAL_SECTIONS)
    )
    select: list[str] = field(default_factory=list)  # empty = all rules
    ignore: list[str] = field(default_factory=list)
    fail_on: str = "warning"
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

    def has_dcache(self) -> bool:
        """Whether the target has a data cache that DMA bypasses (BG501/BG502 apply)."""
        if self.dcache is not None:
            return self.dcache
        text = " ".join([self.target, *self.extra_flags]).lower()
        return any(cpu in text for cpu in ("cortex-m7", "cortex-m55", "cortex-m85"))

    def rule_enabled(self, rule_id: str) -> bool:
        """Selected (by id or prefix; nothing selected = all) and not ignored."""
        selected = not self.select or any(rule_id.startswith(s) for s in self.select)
        return selected and not any(rule_id.startswith(s) for s in self.ignore)


# Known keys per table, with the type check each value must pass.
_SCHEMA: dict[str, dict[str, str]] = {
    "target": {"triple": "str", "word_bits": "int", "profile": "names", "profile_files": "strs"},
    "build": {
        "include": "strs",
        "defines": "strs",
        "compile_commands": "str",
        "flags": "strs",
        "resource_dir": "str",
        "jobs": "int",
    },
    "interrupts": {
        "patterns": "strs",
        "callbacks": "strs",
        "registrations": "regs",
        "blocking": "strs",
        "unsafe": "strs",
        "nonreentrant": "strs",
        "replace": "bool",
    },
    "tasks": {"entries": "strs", "creators": "regs", "replace": "bool"},
    "critical": {"pairs": "pairs", "replace": "bool"},
    "dma": {
        "dcache": "bool",
        "cache_line": "int",
        "tx": "regs",
        "rx": "regs",
        "clean": "regs",
        "invalidate": "regs",
        "clean_all": "strs",
        "invalidate_all": "strs",
    },
    "misra": {"enabled": "bool", "cppcheck": "str", "flags": "strs"},
    "rules": {"select": "strs", "ignore": "strs", "fail_on": "str", "baseline": "str"},
}


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
    return Config(root=here)


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
    for table, values in data.items():
        if table == "sdk":
            continue  # one table or an array of tables: checked by specs_from_config
        if table not in _SCHEMA:
            raise ConfigError(f"{where}: unknown table [{table}] (known: {', '.join(_SCHEMA)})")
        if not isinstance(values, dict):
            raise ConfigError(f"{where}: [{table}] must be a table")
        for key, value in values.items():
            if key not in _SCHEMA[table]:
                known = ", ".join(_SCHEMA[table])
                raise ConfigError(f"{where}: unknown key [{table}] {key} (known: {known})")
            _check(where, table, key, value, _SCHEMA[table][key])

    def get(table: str, key: str, default: Any = None) -> Any:
        return data.get(table, {}).get(key, default)

    def rel(p: str) -> Path:
        return (root / p).resolve() if not Path(p).is_absolute() else Path(p)

    cfg = Config(root=root, source=source)
    cfg.target = get("target", "triple", cfg.target)
    cfg.word_bits = get("target", "word_bits", cfg.word_bits)
    if cfg.word_bits not in (8, 16, 32, 64):
        raise ConfigError(f"{where}: [target] word_bits must be 8, 16, 32 or 64")
    cfg.include = [rel(p) for p in get("build", "include", [])]
    cfg.defines = list(get("build", "defines", []))
    cc = get("build", "compile_commands")
    cfg.compile_commands = rel(cc) if cc else None
    cfg.extra_flags = list(get("build", "flags", []))
    rd = get("build", "resource_dir")
    cfg.resource_dir = rel(rd) if rd else None
    cfg.jobs = get("build", "jobs", 0)
    if cfg.jobs < 0:
        raise ConfigError(f"{where}: [build] jobs must be 0 (one per CPU) or more")

    _platform(cfg, get, rel, where)

    def merged(table: str, key: str, default: list) -> list:
        extra = get(table, key, [])
        return list(extra) if get(table, "replace", False) else [*default, *extra]

    cfg.interrupt_patterns = merged("interrupts", "patterns", cfg.interrupt_patterns)
    cfg.interrupt_callbacks = merged("interrupts", "callbacks", cfg.interrupt_callbacks)
    regs = [Registration(r["function"], r["arg"]) for r in get("interrupts", "registrations", [])]
    cfg.interrupt_registrations = (
        regs if get("interrupts", "replace", False) else [*cfg.interrupt_registrations, *regs]
    )
    cfg.task_entries = merged("tasks", "entries", cfg.task_entries)
    creators = [Registration(r["function"], r["arg"]) for r in get("tasks", "creators", [])]
    cfg.task_creators = creators if get("tasks", "replace", False) else [
        *cfg.task_creators,
        *creators,
    ]
    pairs = [(a, b) for a, b in get("critical", "pairs", [])]
    cfg.critical_sections = pairs if get("critical", "replace", False) else [
        *cfg.critical_sections,
        *pairs,
    ]
    cfg.select = list(get("rules", "select", []))
    cfg.ignore = list(get("rules", "ignore", []))
    cfg.fail_on = get("rules", "fail_on", cfg.fail_on)
    if cfg.fail_on not in FAIL_ON:
        raise ConfigError(f"{where}: [rules] fail_on must be one of {', '.join(FAIL_ON)}")
    bl = get("rules", "baseline")
    cfg.baseline = rel(bl) if bl else None
    cfg.misra = get("misra", "enabled", False)
    cfg.cppcheck = get("misra", "cppcheck", cfg.cppcheck)
    cfg.misra_flags = list(get("misra", "flags", []))
    cfg.sdks = specs_from_config(data["sdk"], root, where) if "sdk" in data else []
    for spec in cfg.sdks:  # the target SDK's headers are on the project's include path
        if spec.target:
            cfg.include += [p for p in spec.include if p not in cfg.include]
    return cfg


def _platform(cfg: Config, get: Any, rel: Any, where: str) -> None:
    """Load the selected profiles into ``cfg.platform``; add their entry points and critical
    sections to the defaults (which the [interrupts]/[tasks]/[critical] tables then extend)."""
    chosen = get("target", "profile")
    names = [chosen] if isinstance(chosen, str) else chosen
    files = [rel(p) for p in get("target", "profile_files", [])]
    try:
        plat = load_platform(names, files, cfg.root)
    except ConfigError as exc:
        raise ConfigError(f"{where}: [target] profile: {exc}") from None
    if names is not None or files:
        extend = [
            (cfg.interrupt_patterns, plat.interrupt_patterns),
            (cfg.interrupt_callbacks, plat.interrupt_callbacks),
            (cfg.interrupt_registrations, [Registration(f, a) for f, a in
                                           plat.interrupt_registrations]),
            (cfg.task_creators, [Registration(f, a) for f, a in plat.task_creators]),
            (cfg.critical_sections, plat.critical_pairs),
        ]
        for into, items in extend:
            into.extend(i for i in items if i not in into)
    for key, why in (("blocking", "blocks"), ("unsafe", "unsafe")):
        for name in get("interrupts", key, []):
            plat.blocking[name] = why
    for name in get("interrupts", "nonreentrant", []):
        plat.nonreentrant.setdefault(name, "")
    for key, into in (("tx", plat.dma_tx), ("rx", plat.dma_rx), ("clean", plat.cache_clean),
                      ("invalidate", plat.cache_invalidate)):
        for r in get("dma", key, []):
            into[r["function"]] = r["arg"]
    plat.clean_all.update(get("dma", "clean_all", []))
    plat.invalidate_all.update(get("dma", "invalidate_all", []))
    cfg.platform = plat
    cfg.dcache = get("dma", "dcache")
    cfg.cache_line = get("dma", "cache_line", cfg.cache_line)
    if cfg.cache_line <= 0 or cfg.cache_line & (cfg.cache_line - 1):
        raise ConfigError(f"{where}: [dma] cache_line must be a power of two, e.g. 32")


def _check(where: str, table: str, key: str, value: Any, kind: str) -> None:
    name = f"{where}: [{table}] {key}"
    if kind == "names" and not (
        isinstance(value, str)
        or isinstance(value, list) and all(isinstance(v, str) for v in value)
    ):
        raise ConfigError(f'{name} must be a profile name or a list of them, e.g. "freertos"')
    if kind == "str" and not isinstance(value, str):
        raise ConfigError(f"{name} must be a string")
    if kind == "int" and (not isinstance(value, int) or isinstance(value, bool)):
        raise ConfigError(f"{name} must be an integer")
    if kind == "bool" and not isinstance(value, bool):
        raise ConfigError(f"{name} must be true or false")
    if kind == "strs" and not (
        isinstance(value, list) and all(isinstance(v, str) for v in value)
    ):
        raise ConfigError(f"{name} must be a list of strings")
    if kind == "pairs" and not (
        isinstance(value, list)
        and all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(s, str) for s in p)
            for p in value
        )
    ):
        raise ConfigError(f'{name} must be a list of [begin, end] pairs, e.g. [["a", "b"]]')
    if kind == "regs":
        ok = isinstance(value, list) and all(
            isinstance(r, dict)
            and set(r) == {"function", "arg"}
            and isinstance(r["function"], str)
            and isinstance(r["arg"], int)
            and not isinstance(r["arg"], bool)
            for r in value
        )
        if not ok:
            raise ConfigError(
                f'{name} must be a list of {{function = "name", arg = N}} tables (arg -1 = last)'
            )
