"""``[soak]`` in brickguard.toml: what to run, what to inject, how peripherals read, what to check.

```toml
[soak]
scenario = "poll_frames"          # a function the harness calls `repeat` times; "main": run main
repeat = 1                        # for `budget` instructions (it need not return)
budget = 200000                   # instructions: main's run length, else a run's lock-up limit
bounded = false                   # true: run the scenario for `budget` instructions, as main
priority = 0x20                   # a scenario that is a handler runs at this priority byte
waits = 0                         # handlers taken where the run waits, to get past it
handler_budget = 20000            # instructions a handler may take before it counts as hung
setup = ["i2c_slave_init"]        # functions called once, in order, before the scenario
checks = ["frame_intact"]         # C functions that return non-zero on a broken invariant
sources = ["soak/hal_stub.c"]     # extra C files for soak only (HAL stand-ins, checks, scenario)
cpu = "cortex-m4"                 # cortex-m0, -m0plus, -m3, -m4, -m7; default: from the target
flags = ["-O2"]                   # extra gcc flags (optimisation level; -D/-I come from [build])
stack = 2048                      # bytes of stack below the scenario
window = 4                        # boundaries explored either side of each shared access
max_runs = 200000                 # bounds on one exploration
max_seconds = 120
oracle = "location"               # serializability per memory location (a joint failure,
                                  # each location alone serial, is reported, not gating);
                                  # "scenario": the whole call is the unit (joint ones gate)
seed = "wrap"                     # "": as setup leaves it; "wrap": every counter the handlers
                                  # step, one step before it wraps (explore.py: seeded state)
stub_return = 0                   # what undefined functions return (their stubs)

[[soak.interrupts]]
handler = "I2C1_EV_IRQHandler"
irq = 31                          # NVIC number: injected only while its enable bit is set
priority = 0x10                   # its priority byte (the code's NVIC_SetPriority overrides)
prime = 3                         # runs before the scenario (after setup): the state it starts in
enabled = false                   # true: its NVIC enable bit is set from the start
after = ["HAL_I2C_Slave_Receive_IT"]  # injected only once one of these has been called
explore = true                    # false: only taken where the run waits, to end the wait

[[soak.peripherals]]              # plain memory; default: 0x40000000-0x5fffffff
base = 0x40005000
size = 0x1000

[[soak.reads]]                    # scripted reads of one peripheral register
address = 0x40005410
values = [0x68, 0x69, 0x0A]       # yields these in turn, then the last one again
set = 0x40                        # bits that read as 1 whatever was written
```
"""

from __future__ import annotations

from dataclasses import dataclass, field

from brickguard.tables import checked

SEEDS = ("", "wrap")
ORACLES = ("location", "scenario")
CPUS = ("cortex-m0", "cortex-m0plus", "cortex-m3", "cortex-m4", "cortex-m7")


@dataclass(frozen=True)
class InterruptSpec:
    handler: str
    irq: int | None = checked(lambda n: 0 <= n < 240, "an IRQ number from 0 to 239", default=None)
    # Its NVIC priority byte (0x50: 5 with 4 priority bits) before setup runs (the code's
    # NVIC_SetPriority overrides it); default: [interrupts] priorities, else 0 as at reset.
    priority: int | None = checked(lambda n: 0 <= n < 256, "0 to 255", default=None)
    prime: int = checked(lambda n: 0 <= n <= 10000, "0 to 10000", default=0)
    enabled: bool = False  # its NVIC enable bit is set when setup begins (else: as code sets it)
    # Injected only once the run (setup included) has called one of these: a HAL peripheral
    # raises no interrupt until a transfer is started in interrupt or DMA mode.
    after: list[str] = field(default_factory=list)
    # false: never injected for the exploration, only taken where the run waits (``waits``)
    # when it is what ends the wait (a flag only another handler sets); --confirm adds the
    # static model's other interrupt contexts so (--wait-handler).
    explore: bool = True


@dataclass(frozen=True)
class Peripheral:
    base: int
    size: int = checked(lambda n: n > 0, "more than 0")


@dataclass(frozen=True)
class ReadScript:
    address: int
    values: list[int] = field(default_factory=list)
    set: int = 0


@dataclass(frozen=True)
class SoakTable:
    scenario: str = "main"
    repeat: int = checked(lambda n: 1 <= n <= 100000, "1 to 100000", default=1)
    budget: int = checked(lambda n: n > 0, "more than 0", default=200000)
    bounded: bool = False  # the scenario runs for `budget` instructions, returning or not (main)
    # The priority byte the scenario runs at when it is itself an interrupt handler (its name
    # matches [interrupts] patterns); default: as for an interrupt's `priority`.
    priority: int | None = checked(lambda n: 0 <= n < 256, "0 to 255", default=None)
    # Times a handler is taken where the run without interrupts waits (spins to its budget:
    # `while (!flag) {}`), so that the exploration starts past the wait; 0: never.
    waits: int = checked(lambda n: 0 <= n <= 100, "0 to 100", default=0)
    handler_budget: int = checked(lambda n: n > 0, "more than 0", default=20000)
    setup: list[str] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    cpu: str | None = checked(lambda s: s in CPUS, "one of " + ", ".join(CPUS), default=None)
    flags: list[str] = field(default_factory=list)
    stack: int = checked(lambda n: 256 <= n <= 1 << 20, "256 to 1048576 bytes", default=2048)
    window: int = checked(lambda n: 0 <= n <= 1000, "0 to 1000", default=4)
    max_runs: int = checked(lambda n: n > 0, "more than 0", default=200000)
    max_seconds: int = checked(lambda n: n > 0, "more than 0", default=120)
    # The shared state the exploration starts from: "" as setup and prime leave it; "wrap":
    # every global a handler counts (steps by the same amount in two runs) set one step before
    # it wraps, a state 2^n interrupts reach (a torn read of a carry needs it).
    seed: str = checked(lambda s: s in SEEDS, "one of: " + ", ".join(repr(s) for s in SEEDS),
                        default="")
    # The serializability oracle's unit: "location", each memory location the handler touches
    # alone (a run whose every location matches a serial order, only not the same one, is a
    # "joint" failure: reported, not gating); "scenario": the whole call (joint ones gate).
    oracle: str = checked(lambda s: s in ORACLES, "one of: " + ", ".join(ORACLES),
                          default="location")
    # What the stubs of undefined functions return (a path taken only on a non-zero result).
    stub_return: int = checked(lambda n: 0 <= n <= 0xFFFFFFFF, "0 to 0xFFFFFFFF", default=0)
    interrupts: list[InterruptSpec] = field(default_factory=list)
    peripherals: list[Peripheral] = field(default_factory=list)
    reads: list[ReadScript] = field(default_factory=list)
