"""Pin data: which pins a part has in its package, which signals each carries on which
alternate-function (AF) number, and which peripheral instances the part has (BG301-BG305).

The rules read one vendor-neutral shape, ``PinData``; a loader per vendor builds it from that
vendor's own files and it is cached as JSON (one file per part, keyed by the source files'
contents), so a check reads it in milliseconds.

**ST** (``vendor = "st"``): STMicroelectronics' STM32_open_pin_data (BSD-3-Clause), the folder
holding ``mcu/``. ``mcu/<RefName>.xml`` describes one part family in one package: the
``<Mcu RefName="STM32F407V(E-G)Tx" Package="LQFP100" Line=... Family=...>`` root, one
``<IP InstanceName="I2C1" .../>`` per peripheral instance (and the ``GPIO`` IP naming the
die's alternate-function table), and one ``<Pin Name="PB6" Type="I/O">`` per package pin with
its ``<Signal Name="I2C1_SCL"/>`` children. ``mcu/IP/GPIO-<Version>_Modes.xml`` is that table
for the die: ``<GPIO_Pin Name="PB6">`` holds ``<PinSignal Name="I2C1_SCL">`` whose
``GPIO_AF`` parameter is the HAL macro ``GPIO_AF4_I2C1`` (AF4). A RefName's parenthesised
groups list variants: ``STM32F407V(E-G)Tx`` is STM32F407VETx and STM32F407VGTx.

**Adding a vendor.** Write a loader ``(folder, part name) -> PinData`` and add it to
``LOADERS``; it must give, for the part named in ``[target] mcu``:

- ``pins``: every pin of the package by its port name (``PB6``: port letter and number, as
  the code's ``GPIOB``/``GPIO_PIN_6`` name it), each with its signals as ``Signal`` (signal
  name ``<INSTANCE>_<FUNCTION>``, its AF number, and the SDK macro that selects it, if any);
  signals with no AF number (analog, EXTI) have ``af = None``;
- ``instances``: the peripheral instances the part has (``I2C1``, ``USART6``...);
- ``known_instances``: the instance names any part of the vendor's database has (so that a
  name in the code is recognised as a peripheral the part lacks, and not some other macro);
- ``sources``: the files read (their contents key the cache).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

from brickguard.errors import ConfigError

FORMAT = 1  # bump when PinData's JSON shape changes
_NS = "{http://dummy.com}"
_PIN = re.compile(r"^P([A-K])(\d{1,2})(?!\d)")
_AF_MACRO = re.compile(r"^GPIO_AF(\d+)_(\w+)$")


@dataclass(frozen=True)
class Signal:
    name: str  # "I2C1_SCL"
    af: int | None  # the alternate-function number; None when not selected by AF (analog...)
    macro: str = ""  # the SDK's macro for it: "GPIO_AF4_I2C1"


@dataclass
class PinData:
    mcu: str  # the part as configured: "STM32F407VGTx"
    ref: str  # the vendor's name of the description read: "STM32F407V(E-G)Tx"
    vendor: str
    family: str  # "STM32F4"
    line: str  # "STM32F407/417": the clock limits are per line
    package: str  # "LQFP100"
    pins: dict[str, list[Signal]] = field(default_factory=dict)  # "PB6" -> its signals
    instances: list[str] = field(default_factory=list)
    known_instances: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)

    def signal_pins(self, prefix: str) -> dict[str, list[tuple[str, int]]]:
        """Signal name -> [(pin, AF)] for the signals of one instance (``I2C1``), AF ones only."""
        out: dict[str, list[tuple[str, int]]] = {}
        for pin in sorted(self.pins, key=pin_sort_key):
            for s in self.pins[pin]:
                if s.af is not None and s.name.startswith(prefix + "_"):
                    out.setdefault(s.name, []).append((pin, s.af))
        return out

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> PinData:
        pins = {p: [Signal(**s) for s in sigs] for p, sigs in data.pop("pins").items()}
        return cls(pins=pins, **data)


def pin_sort_key(pin: str) -> tuple[str, int]:
    m = _PIN.match(pin)
    return (m.group(1), int(m.group(2))) if m else (pin, 0)


def af_macro(name: str) -> tuple[int, str] | None:
    """``GPIO_AF4_I2C1`` -> (4, "I2C1"); None for any other name."""
    m = _AF_MACRO.match(name)
    return (int(m.group(1)), m.group(2)) if m else None


def expand_ref(ref: str) -> list[str]:
    """``STM32F407V(E-G)Tx`` -> [STM32F407VETx, STM32F407VGTx]: each (a-b-c) group is one of."""
    parts = re.split(r"\(([^()]*)\)", ref)
    choices = [[p] if i % 2 == 0 else p.split("-") for i, p in enumerate(parts)]
    return ["".join(c) for c in itertools.product(*choices)]


# -- ST's open pin data ----------------------------------------------------------------------------
def _st_find(folder: Path, mcu: str) -> Path:
    mcus = folder / "mcu"
    if not mcus.is_dir():
        raise ConfigError(f"{folder}: no mcu/ folder: [target] pin_data must name the folder of "
                          "ST's STM32_open_pin_data (the one holding mcu/)")
    want = mcu.upper()
    for f in sorted(mcus.glob("*.xml")):
        if want in (n.upper() for n in (f.stem, *expand_ref(f.stem))):
            return f
    close = sorted(f.stem for f in mcus.glob(f"{mcu[:9]}*.xml"))
    hint = f" (this data has {', '.join(close[:8])})" if close else ""
    raise ConfigError(f"[target] mcu {mcu!r}: no such part in {mcus}{hint}")


def _st_load(folder: Path, mcu: str) -> PinData:
    path = _st_find(folder, mcu)
    root = ET.parse(path).getroot()
    instances, gpio_version = [], ""
    for ip in root.iter(f"{_NS}IP"):
        name = ip.get("InstanceName", "")
        if ip.get("Name") == "GPIO":
            gpio_version = ip.get("Version", "")
        elif name:
            instances.append(name)
    modes_path = folder / "mcu" / "IP" / f"GPIO-{gpio_version}_Modes.xml"
    afs: dict[str, dict[str, tuple[int, str]]] = {}
    if modes_path.is_file():
        for gp in ET.parse(modes_path).getroot().iter(f"{_NS}GPIO_Pin"):
            m = _PIN.match(gp.get("Name", ""))
            if m is None:
                continue
            pin = f"P{m.group(1)}{m.group(2)}"
            for sig in gp.iter(f"{_NS}PinSignal"):
                for value in sig.iter(f"{_NS}PossibleValue"):
                    got = af_macro((value.text or "").strip())
                    if got is not None:
                        afs.setdefault(pin, {})[sig.get("Name", "")] = (got[0], value.text.strip())
    pins: dict[str, list[Signal]] = {}
    for p in root.iter(f"{_NS}Pin"):
        m = _PIN.match(p.get("Name", ""))
        if m is None or p.get("Type") != "I/O":
            continue
        pin = f"P{m.group(1)}{m.group(2)}"
        table = afs.get(pin, {})
        signals = []
        for s in p.iter(f"{_NS}Signal"):
            name = s.get("Name", "")
            if name == "GPIO":
                continue
            af, macro = table.get(name, (None, ""))
            signals.append(Signal(name, af, macro))
        pins[pin] = signals
    return PinData(
        mcu=mcu, ref=root.get("RefName", path.stem), vendor="st",
        family=root.get("Family", ""), line=root.get("Line", ""),
        package=root.get("Package", ""), pins=pins, instances=sorted(instances),
        known_instances=_st_known_instances(folder / "mcu"),
        sources=[str(path), str(modes_path)],
    )


@lru_cache(maxsize=4)
def _st_known_instances(mcus: Path) -> list[str]:
    names: set[str] = set()
    pattern = re.compile(rb'<IP [^>]*InstanceName="([A-Z0-9_]+)"')
    for f in mcus.glob("*.xml"):
        names.update(n.decode() for n in pattern.findall(f.read_bytes()))
    return sorted(names)


def _st_sources(folder: Path, mcu: str) -> list[Path]:
    path = _st_find(folder, mcu)
    text = path.read_text(encoding="utf-8", errors="replace")
    m = re.search(r'Name="GPIO" Version="([^"]+)"', text)
    modes = folder / "mcu" / "IP" / f"GPIO-{m.group(1) if m else ''}_Modes.xml"
    return [path, modes]


LOADERS: dict[str, tuple[Callable[[Path, str], PinData], Callable[[Path, str], list[Path]]]] = {
    "st": (_st_load, _st_sources),
}


# -- the cache -------------------------------------------------------------------------------------
def pin_cache_dir(root: Path | None) -> Path:
    """``$BRICKGUARD_CACHE_DIR/pins`` when set; else ``<root>/.brickguard-cache/pins``."""
    if os.environ.get("BRICKGUARD_CACHE_DIR"):
        return Path(os.environ["BRICKGUARD_CACHE_DIR"]) / "pins"
    base = Path(root) if root is not None else Path(tempfile.gettempdir())
    return base / ".brickguard-cache" / "pins"


def load_pin_data(folder: Path, mcu: str, vendor: str = "st",
                  cache_dir: Path | None = None) -> PinData:
    """The pin data of ``mcu`` from the vendor's ``folder``, from the cache when the source files
    are unchanged (their contents key it). Raises ConfigError when the part or folder is not
    there."""
    if vendor not in LOADERS:
        raise ConfigError(f"[target] vendor {vendor!r}: pin data is read for {', '.join(LOADERS)}")
    if not folder.is_dir():
        raise ConfigError(f"[target] pin_data {folder}: no such folder")
    load, sources = LOADERS[vendor]
    h = hashlib.sha256(f"{FORMAT}\0{vendor}\0{mcu.upper()}\0".encode())
    for src in sources(folder, mcu):
        h.update(str(src).encode() + b"\0")
        h.update(src.read_bytes() if src.is_file() else b"")
    cache = (cache_dir or pin_cache_dir(None)) / f"{vendor}-{mcu.upper()}-{h.hexdigest()[:16]}.json"
    if cache.is_file():
        try:
            data = PinData.from_json(json.loads(cache.read_text(encoding="utf-8")))
            data.mcu = mcu
            return data
        except (OSError, ValueError, TypeError, KeyError):
            pass  # a broken cache file is rebuilt
    data = load(folder, mcu)
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data.to_json()), encoding="utf-8")
        tmp.replace(cache)
    except OSError:
        pass  # a read-only cache folder costs speed, not results
    return data
