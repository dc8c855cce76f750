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
return 0 (the CMSIS and HAL NVIC calls, FreeRTOS's vPortEnter/ExitCritical, BASEPRI to
configMAX_SYSCALL_INTERRUPT_PRIORITY on v7-M and PRIMASK on v6-M, and Zephyr's
irq_lock/irq_unlock, BASEPRI to Z_EXC_PRIO(2) on v7-M, which a handler at priority 0 (a
zero-latency one) runs above, and PRIMASK on v6-M, are stand-ins that do what they do to
interrupts. A Zephyr handler injected by name has the NVIC's reset priority 0: IRQ_CONNECT's
priority is not modelled, so irq_lock masks none that soak injects on v7-M; TI driverlib's
Interrupt_setPriority (the register byte) and Interrupt_setPriorityMask (BASEPRI) are
stand-ins too).

What is not: an interrupt inside a Thumb-2 IT block (the emulator keeps the condition state in
translated code, so those boundaries are skipped and counted), an interrupt inside any other
instruction (LDRD/STRD and the rest complete or restart: no torn LDRD), peripheral behaviour (a
register that clears on read, a timer that counts, DMA), caches and bus timing, the FPU (soft
float is forced), IPSR, the process stack, tail-chaining and late arrival, more than one
injected interrupt per run (a handler nesting in the injected one), the implemented priority
bits (all 8 are kept), and exclusive monitors cleared by exception entry, and writes to flash
(the emulator keeps them; a real part ignores or faults on them). A handler's footprint is
learnt from two runs, from the scenario's starting state and from where its run ends; accesses
it makes only in other states are not planned around. A scenario that is a handler starts from
the reset state (or setup's), not from where ``main``'s initialisation leaves the registers. A
bounded run that ends in a wait loop (a few instructions that write nothing) is not judged
against serial orders when the interrupt lands inside that wait: it is what the loop waits for,
and the budget cuts what follows (a torn read inside such a loop is missed; checks, faults and
lock-ups still count there).
"""
