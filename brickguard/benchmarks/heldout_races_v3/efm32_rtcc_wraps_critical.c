/* 64-bit time base from the 32-bit RTCC counter and its overflow interrupt (EFM32PG12, emlib). */
#include "efm32pg12_emlib.h"

static volatile uint32_t rtcc_wraps;

void RTCC_IRQHandler(void)
{
    uint32_t flags = RTCC_IntGetEnabled();
    RTCC_IntClear(flags);
    if ((flags & RTCC_IF_OF) != 0U) {
        rtcc_wraps++;
    }
}

static uint64_t rtcc_ticks64(void)
{
    CORE_DECLARE_IRQ_STATE;
    CORE_ENTER_CRITICAL();
    uint32_t hi = rtcc_wraps;
    uint32_t lo = RTCC_CounterGet();
    if (((RTCC_IntGetEnabled() & RTCC_IF_OF) != 0U) && (lo < 0x80000000UL)) {
        hi++; /* wrapped after the handler last ran: count the pending overflow */
    }
    CORE_EXIT_CRITICAL();
    return ((uint64_t)hi << 32) | lo;
}

extern void sensor_sample(uint64_t stamp);

int main(void)
{
    CHIP_Init();
    RTCC_IntEnable(RTCC_IF_OF);
    NVIC_SetPriority(RTCC_IRQn, 5U);
    NVIC_EnableIRQ(RTCC_IRQn);
    uint64_t next = rtcc_ticks64() + 32768U;
    for (;;) {
        uint64_t now = rtcc_ticks64();
        if (now >= next) {
            sensor_sample(now);
            next += 32768U;
        }
        EMU_EnterEM1();
    }
}
