"""``brickguard soak``: the soak test in seconds, on the real instruction set, with a witness.

The project is compiled for the target with the real cross compiler (build.py), run in unicorn's
Cortex-M core (machine.py), and the interrupt handler is injected on every instruction boundary
where it can matter, one run per boundary, from snapshots (explore.py). A failing run becomes a
witness (witness.py); ``check --confirm`` runs this on the static race findings (confirm.py).

What is modelled: the Cortex-M0/M0+/M3/M4/M7 instruction set (Thumb, soft float), flash and RAM
as the image needs them, PRIMASK (cpsid/cpsie, MRS/MSR), BASEPRI, the NVIC's enable/pending
set/clear registers, the exception frame, and the NVIC's preemption rule: a handler is taken
only where its group priority is more urgent than the execution priority (thread mode; PRIMASK;
BASEPRI; the priority of a scenario that is itself a handler: equal or less urgent ones never
nest), with priorities from IPR/SHPR as the code writes them (with no setup given: as ``main``
sets them), AIRCR's PRIGROUP, ``[soak]`` and ``[interrupts] priorities``. On v7-M (M3/M4/M7) an
LDM/STM is also interrupted between its transfers and continued after the handler, as EPSR.ICI
does (v6-M restarts it: the boundary before it). A HAL handler (it calls
``HAL_X_IRQHandler``) is injected only once its family is started in IT/DMA mode (``after``).
Peripheral ranges are plain memory with scripted reads; undefined functions are stubs that
return 0 (``[soak] stub_return``, ``--stub-return``: ``--confirm`` tries 1 and all-ones too when
the reset state leaves a finding unconfirmed; the CMSIS and HAL NVIC calls (NVIC_SetPriority's
level in the top ``__NVIC_PRIO_BITS``, as the sources define it, else 4), the one-line masks the
configuration lists (``[critical] masks``: SYS_INT_SourceDisable/Restore, DisableIRQ/EnableIRQ,
irq_disable/irq_enable, on the NVIC line their first argument numbers; TI's take the exception
number), FreeRTOS's vPortEnter/ExitCritical, BASEPRI to
configMAX_SYSCALL_INTERRUPT_PRIORITY on v7-M and PRIMASK on v6-M, and Zephyr's
irq_lock/irq_unlock, BASEPRI to Z_EXC_PRIO(2) on v7-M, which a handler at priority 0 (a
zero-latency one) runs above, and PRIMASK on v6-M, are stand-ins that do what they do to
interrupts. Under ``--confirm`` a Zephyr handler is injected at priority 0 when the static
model has it zero-latency (IRQ_ZERO_LATENCY), else at 0x40, the most urgent a Zephyr ISR can be
(z_arm_irq_priority_set adds _IRQ_PRIO_OFFSET), which irq_lock masks; a callback a driver calls
from one line's handler is injected on that line, as the static model gives it; TI
driverlib's Interrupt_setPriority (the register byte) and Interrupt_setPriorityMask (BASEPRI)
are stand-ins too). Under ``--confirm`` every handler, and a scenario that is one, starts at
the priority level the static model gives it (``Context.level``: setter calls no stand-in
models, configuration structs, registrations; a priority register the code writes wins), and
the static model's other interrupt contexts are wait handlers (``explore = false``): never
explored, taken where the run waits when one is what ends the wait.

Pending at the enable: a handler gated by ``after`` (under ``--confirm``, also the call a
late-write finding names as the one that lets it run: ``NVIC_EnableIRQ()``, the driver call
that starts what a callback reports) is taken no earlier than that call, as an interrupt that
became pending while its source was off is; where it cannot be taken at the call's start, "the
handler wholly before the call" is no serial order, and a location the call accesses first
there is compared with the handler after only. One completion per arming: a handler that calls
a disable (``adc_disable()``, ``LL_DMA_DisableChannel()``) whose enable counterpart is in the
image is, once it has run (a prime, a wait it ended), taken again only after that call. The
null page: a data access to the vector table at address 0 (a NULL pointer's members; a
Cortex-M reads the table there without faulting) by an instruction that makes none in the
serial references is a fault.

Seeded state (``[soak] seed = "wrap"``, ``--seed wrap``; ``--confirm`` tries it when the other
starting states leave a finding unconfirmed): every global scalar a handler counts (steps by the
same amount in two runs from the start) is set one step before it wraps, the state 2^n
interrupts reach, where a carry runs into the high word; the values set are in the report and
the witness. Rounds (``--rounds``; on under ``--confirm``): a bounded run that lands inside the
wait it ends in is judged on the round of the loop it lands in, its reads there against those of
the handler taken at the round's start and of no handler in the round.

What is not: an interrupt inside a Thumb-2 IT block (the emulator keeps the condition state in
translated code, so those boundaries are skipped and counted), an interrupt inside any other
instruction (LDRD/STRD and the rest complete or restart: no torn LDRD), peripheral behaviour (a
register that clears on read, a timer that counts, DMA), caches and bus timing, the FPU (soft
float is forced), IPSR, the process stack, tail-chaining and late arrival, more than one
injected interrupt per run (a handler nesting in the injected one), the implemented priority
bits of a priority register the code writes itself (all 8 are kept), exclusive monitors
cleared by exception entry, and writes to flash (the emulator keeps them; a real part ignores
or faults on them). A handler's footprint is
learnt from two runs, from the scenario's starting state and from where its run ends; accesses
it makes only in other states are not planned around. A scenario that is a handler starts from
the reset state (or setup's), not from where ``main``'s initialisation leaves the registers. A
bounded run that ends in a wait loop (a few instructions that write nothing) is not judged
against serial orders when the interrupt lands inside that wait, unless judged by rounds: it is
what the loop waits for, and the budget cuts what follows (a torn read inside such a loop is
missed without rounds; checks, faults and lock-ups still count there).

The serializability oracle, per memory location (``[soak] oracle = "location"``, the default):
a run that matches neither serial order of the whole call is attributed location by location
(C11 3.14, from DWARF: a scalar, a 64-bit one whole, an array element, a struct member, a run of
adjacent bit-fields; without DWARF, a symbol of 8 bytes or less whole, else its bytes): a
*location* failure when some location the handler touches, alone (its reads in order, its final
bytes), matches neither order (a lost update, a torn object, one location read twice with the
handler's write between); a *joint* failure when each matches one order alone and only the
combination matches none (two plain stores with the handler's stores to both between them,
``bg102/bitfields.c`` main). Joint failures are reported, at warning level, and do not fail the
run: whether two locations must change together is the program's intent, which a check
(``BG_SOAK_ASSERT``, ``[soak] checks``) states; ``oracle = "scenario"`` (``--oracle``) makes
them fail as well. ``--confirm`` confirms a finding through a location failure on the object it
names (or a joint one on both words of its pair), a check, a fault or a lock-up.
"""
