"""The emulated board: a Cortex-M core in unicorn, its memory, its peripherals as plain memory.

- Flash (the image's code and constants) at 0, RAM (.data, .bss, the stack) at 0x20000000,
  mapped exactly as large as the image needs, so a snapshot is one small copy.
- Peripheral ranges (``[[soak.peripherals]]``, default 0x40000000-0x5fffffff) are plain memory
  held by Python: a read returns what was last written (0 at first), or the next value of a
  scripted read (``[[soak.reads]]``), with ``set`` bits forced to 1.
- The NVIC (0xE000E100-0xE000E4EF): ISER/ICER set and clear the enable bits, ISPR/ICPR the pending
  bits, IPR holds the priorities; the rest of the System Control Space is plain memory.
- An interrupt is taken as the core takes it: the 8-word frame (r0-r3, r12, lr, pc, xPSR) is
  pushed on the current stack (8-byte aligned), the handler runs to its return, and the
  registers are restored as the exception return restores them. The handler runs on the same
  stack; it preempts only as the NVIC lets it (``preempts``: priorities from IPR/SHPR as the code
  writes them, AIRCR's priority grouping, PRIMASK, BASEPRI, and the priority of a scenario that is
  itself a handler). Floating-point state, tail-chaining and late arrival are not modelled, nor
  are peripheral side effects (DMA, timers counting, flags that clear on read).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass

from brickguard.errors import BrickguardError
from brickguard.soak.build import PAGE, RAM_BASE, Image
from brickguard.soak.settings import SoakTable

DEFAULT_PERIPHERALS = ((0x40000000, 0x20000000),)
SCS_BASE, SCS_SIZE = 0xE000E000, 0x1000
ISER, ICER, ISPR, ICPR, IPR = 0xE000E100, 0xE000E180, 0xE000E200, 0xE000E280, 0xE000E400
AIRCR, SHPR = 0xE000ED0C, 0xE000ED18  # PRIGROUP (bits 10:8); system handler priorities
THREAD = 256  # thread mode's execution priority: below every configurable priority
# CMSIS names of the system exceptions -> exception number (IRQ n is exception 16 + n).
SYSTEM_EXCEPTIONS = {"NMI_Handler": 2, "HardFault_Handler": 3, "MemManage_Handler": 4,
                     "BusFault_Handler": 5, "UsageFault_Handler": 6, "SVC_Handler": 11,
                     "DebugMon_Handler": 12, "PendSV_Handler": 14, "SysTick_Handler": 15}
_FRAME = struct.Struct("<8I")  # the exception frame: r0-r3, r12, lr, pc, xPSR
RETURN_PAD = 0x40  # past the code: where calls return to (the emulation stops there)


def _align_up(n: int, to: int = PAGE) -> int:
    return (n + to - 1) // to * to


@dataclass
class Snapshot:
    context: object
    ram: bytes
    periph: dict[int, int]
    script: dict[int, int]


class Stop:
    RETURN = "return"  # reached the return address
    BUDGET = "budget"  # instruction budget spent (a lock-up, or main's run length)
    FAULT = "fault"


class Machine:
    def __init__(self, image: Image, soak: SoakTable) -> None:
        from unicorn import UC_ARCH_ARM, UC_MODE_MCLASS, UC_MODE_THUMB, Uc, arm_const

        self.image = image
        self.arm = arm_const
        self.uc = Uc(UC_ARCH_ARM, UC_MODE_THUMB | UC_MODE_MCLASS)
        model = {"cortex-m0": "M0", "cortex-m0plus": "M0", "cortex-m3": "M3", "cortex-m4": "M4",
                 "cortex-m7": "M7", "cortex-m33": "M33"}.get(image.cpu)
        if model is None:
            raise BrickguardError(f"[soak] cpu {image.cpu!r} is not one soak emulates; "
                                  "use cortex-m0, cortex-m0plus, cortex-m3, cortex-m4 or cortex-m7")
        self.uc.ctl_set_cpu_model(getattr(arm_const, f"UC_CPU_ARM_CORTEX_{model}"))
        self.ret = _align_up(image.code_end, 4) + RETURN_PAD
        self.flash_size = _align_up(self.ret + 0x10)
        self.ram_size = _align_up(max(image.ram_end - RAM_BASE, 1))
        self.uc.mem_map(0, self.flash_size)
        self.uc.mem_map(RAM_BASE, self.ram_size)
        for addr, data in image.segments:
            self.uc.mem_write(addr, data)
        self.uc.mem_write(self.ret, b"\xfe\xe7")  # b . (never executed: emulation stops here)
        self.periph: dict[int, int] = {}  # byte address -> value
        self.scripts = {r.address: (list(r.values), r.set) for r in soak.reads}
        self.script_pos: dict[int, int] = {}
        ranges = [(p.base, p.size) for p in soak.peripherals] or list(DEFAULT_PERIPHERALS)
        for base, size in _pages(ranges):
            self.uc.mmio_map(base, size, self._read, base, self._write, base)
        self.uc.mmio_map(SCS_BASE, SCS_SIZE, self._read, SCS_BASE, self._write, SCS_BASE)
        self.sp0 = image.stack_top
        self.stub = self.ret + 8  # where handlers return to when the run goes on after them
        self.returned = False
        self._resume: tuple[object, int] = (None, 0)
        self.on_return: Callable[[], None] | None = None
        from unicorn import UC_HOOK_CODE

        self.uc.hook_add(UC_HOOK_CODE, self._exception_return, None, self.stub, self.stub + 1)
        self._frame_regs = RegBatch(self.uc, [getattr(arm_const, f"UC_ARM_REG_{r}") for r in
                                              ("R0", "R1", "R2", "R3", "R12", "LR", "PC",
                                               "XPSR", "SP")])
        self._pc = RegBatch(self.uc, [arm_const.UC_ARM_REG_PC])
        self._entry_regs = RegBatch(self.uc, [arm_const.UC_ARM_REG_SP, arm_const.UC_ARM_REG_XPSR,
                                              arm_const.UC_ARM_REG_LR])
        self.reg(self.arm.UC_ARM_REG_SP, self.sp0)

    # -- peripherals -----------------------------------------------------------------------
    def _read(self, uc, offset: int, size: int, base: int) -> int:
        return self.read_periph(base + offset, size)

    def _write(self, uc, offset: int, size: int, value: int, base: int) -> None:
        self.write_periph(base + offset, size, value)

    def _value(self, addr: int, size: int) -> int:
        return sum(self.periph.get(addr + i, 0) << (8 * i) for i in range(size))

    def _store(self, addr: int, size: int, value: int) -> None:
        for i in range(size):
            self.periph[addr + i] = (value >> (8 * i)) & 0xFF

    def read_periph(self, addr: int, size: int) -> int:
        bank = _nvic_bank(addr)
        if bank is not None:
            return self._value(bank[0], size)
        script = self.scripts.get(addr)
        if script is not None:
            values, forced = script
            if values:
                pos = self.script_pos.get(addr, 0)
                value = values[min(pos, len(values) - 1)]
                self.script_pos[addr] = pos + 1
            else:
                value = self._value(addr, size)
            return (value | forced) & ((1 << (8 * size)) - 1)
        return self._value(addr, size)

    def write_periph(self, addr: int, size: int, value: int) -> None:
        bank = _nvic_bank(addr)
        if bank is None:
            self._store(addr, size, value)
            return
        target, clear = bank
        old = self._value(target, size)
        self._store(target, size, old & ~value if clear else old | value)

    def irq_enabled(self, irq: int) -> bool:
        return bool(self.periph.get(ISER + irq // 8, 0) >> (irq % 8) & 1)

    def exception_priority(self, exc: int) -> int:
        """An exception's priority as the code set it (IPR, SHPR; 0 at reset); NMI and
        HardFault have their fixed negative ones."""
        if exc < 4:
            return exc - 4  # NMI -2, HardFault -1
        return self.periph.get((SHPR + exc - 4) if exc < 16 else (IPR + exc - 16), 0)

    def set_exception_priority(self, exc: int, priority: int) -> None:
        if exc >= 4:
            self._store((SHPR + exc - 4) if exc < 16 else (IPR + exc - 16), 1, priority)

    def group(self, priority: int) -> int:
        """The group (preempting) part of a priority: AIRCR.PRIGROUP = n makes bits n:0 the
        subpriority, which orders pending exceptions but never preempts."""
        if priority < 0:
            return priority
        prigroup = (self._value(AIRCR, 4) >> 8) & 7
        return priority & (0xFF << (prigroup + 1)) & 0xFF

    def preempts(self, priority: int, running: int, primask: int, basepri: int) -> bool:
        """The NVIC's rule: an exception preempts when its group priority is more urgent
        (lower) than the execution priority: that of the running handler (THREAD in thread
        mode), raised to 0 by PRIMASK and to BASEPRI's group priority by a non-zero BASEPRI.
        Equal or less urgent ones wait: they never nest."""
        level = self.group(running) if running < THREAD else THREAD
        if primask & 1:
            level = min(level, 0)
        if basepri & 0xFF:
            level = min(level, self.group(basepri & 0xFF))
        return self.group(priority) < level

    # -- registers and runs ------------------------------------------------------------------
    def reg(self, which: int, value: int | None = None) -> int:
        if value is not None:
            self.uc.reg_write(which, value)
            return value
        return self.uc.reg_read(which)

    @property
    def pc(self) -> int:
        return self._pc.read()[0]

    def masks(self) -> tuple[int, int]:
        """(PRIMASK, BASEPRI) now."""
        return (self.uc.reg_read(self.arm.UC_ARM_REG_PRIMASK),
                self.uc.reg_read(self.arm.UC_ARM_REG_BASEPRI))

    def run(self, start: int, count: int) -> tuple[str, str]:
        """Run from ``start`` until the return address, for at most ``count`` instructions."""
        from unicorn import UcError

        try:
            self.uc.emu_start(start | 1, self.ret, count=count)
        except UcError as exc:
            return Stop.FAULT, f"{exc} at 0x{self.pc:x}"
        return (Stop.RETURN, "") if self.pc == self.ret else (Stop.BUDGET, "")

    def call(self, addr: int, count: int) -> tuple[str, str]:
        """Call a function on the current stack (as a fresh call: lr is the return address)."""
        self.reg(self.arm.UC_ARM_REG_LR, self.ret | 1)
        return self.run(addr, count)

    def resume(self, count: int, pc: int | None = None) -> tuple[str, str]:
        return self.run(self.pc if pc is None else pc, count)

    def interrupt(self, handler: int, count: int, saved: object | None = None,
                  then: tuple[int, int] | None = None) -> tuple[str, str]:
        """Take an interrupt here: push the frame, run the handler to its return, pop it.

        ``saved``: the CPU context now, when the caller has it (a snapshot's). ``then``: (pc,
        instructions) to go on with after the exception return, in the same emulation run: the
        handler returns to a stub whose hook restores the context and jumps back, so one run
        covers both (``returned`` says whether the handler got back)."""
        uc = self.uc
        if saved is None:
            saved = uc.context_save()
        regs = self._frame_regs.read()
        sp = regs[-1]
        frame = (sp - 32) & ~7
        try:
            uc.mem_write(frame, _FRAME.pack(*(v & 0xFFFFFFFF for v in regs[:-1])))
        except Exception as exc:  # noqa: BLE001 - unicorn's UcError: the stack is not mapped
            return Stop.FAULT, f"cannot push the exception frame at 0x{frame:x}: {exc}"
        self.returned = False
        self._resume = (saved, then[0] if then else 0)
        # Thumb, no IT state, flags clear; lr: the exception-return stub.
        self._entry_regs.write((frame, 0x01000000, (self.stub if then else self.ret) | 1))
        if then is None:
            stop = self.run(handler, count)
            uc.context_restore(saved)  # the exception return: registers as stacked
            self.returned = stop[0] == Stop.RETURN
            return stop
        return self.run(handler, count + then[1])

    def _exception_return(self, uc, addr, size, _) -> None:
        saved, pc = self._resume
        uc.context_restore(saved)
        # (the single-register call: unicorn's batch write does not redirect a running emulation)
        uc.reg_write(self.arm.UC_ARM_REG_PC, pc | 1)
        self.returned = True
        if self.on_return is not None:
            self.on_return()

    def unhook(self, hooks: list[int]) -> None:
        """Remove hooks; translated code is flushed so that no block keeps calling them."""
        for h in hooks:
            self.uc.hook_del(h)
        self.uc.ctl_flush_tb()

    # -- snapshots -------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        return Snapshot(self.uc.context_save(), bytes(self.uc.mem_read(RAM_BASE, self.ram_size)),
                        dict(self.periph), dict(self.script_pos))

    def restore(self, snap: Snapshot) -> None:
        self.uc.context_restore(snap.context)
        self.uc.mem_write(RAM_BASE, snap.ram)
        self.periph = dict(snap.periph)
        self.script_pos = dict(snap.script)

    def ram(self, addr: int, size: int) -> bytes:
        return bytes(self.uc.mem_read(addr, size))


class RegBatch:
    """A fixed list of core registers read or written in one library call, with the ctypes
    buffers made once (unicorn's own batch calls build them, and pick a type per register, on
    every call: ~3 us a register, the largest cost of an injected run before this)."""

    def __init__(self, uc, ids: list[int]) -> None:
        import ctypes

        n = len(ids)
        self.uc = uc
        self.ids = (ctypes.c_int * n)(*ids)
        self.vals = (ctypes.c_uint64 * n)()
        size = ctypes.sizeof(ctypes.c_uint64)
        self.ptrs = (ctypes.c_void_p * n)(*(ctypes.addressof(self.vals) + size * i
                                            for i in range(n)))
        self.count = ctypes.c_int(n)
        self.fast = hasattr(uc, "_do_reg_read_batch") and hasattr(uc, "_do_reg_write_batch")
        self.list = list(ids)

    def read(self) -> list[int]:
        if not self.fast:  # another unicorn binding: its public calls
            return list(self.uc.reg_read_batch(self.list))
        self._status(self.uc._do_reg_read_batch(self.ids, self.ptrs, self.count))
        return list(self.vals)

    def write(self, values: tuple[int, ...]) -> None:
        if not self.fast:
            self.uc.reg_write_batch(list(zip(self.list, values, strict=True)))
            return
        for i, v in enumerate(values):
            self.vals[i] = v & 0xFFFFFFFF
        self._status(self.uc._do_reg_write_batch(self.ids, self.ptrs, self.count))

    @staticmethod
    def _status(status: int) -> None:
        if status != 0:
            from unicorn import UcError

            raise UcError(status)


def _pages(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Page-aligned, merged ranges."""
    spans = sorted((b // PAGE * PAGE, _align_up(b + s)) for b, s in ranges)
    out: list[list[int]] = []
    for lo, hi in spans:
        if out and lo <= out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return [(lo, hi - lo) for lo, hi in out]


def _nvic_bank(addr: int) -> tuple[int, bool] | None:
    """For an NVIC set/clear-enable or set/clear-pending register: (the set register, clear?)."""
    for set_bank, clear_bank in ((ISER, ICER), (ISPR, ICPR)):
        if set_bank <= addr < set_bank + 0x40:
            return addr, False
        if clear_bank <= addr < clear_bank + 0x40:
            return addr - (clear_bank - set_bank), True
    return None
