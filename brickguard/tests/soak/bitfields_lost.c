/* tests/cases/bg102/bitfields.c without the line that clears rx_ready after the store that
   loses the handler's rx_ready = 1: here the lost store shows in the final state. */
#include <stdint.h>

static inline void __enable_irq(void) { __asm volatile("cpsie i" ::: "memory"); }

struct status {
    unsigned rx_ready : 1;
    unsigned tx_busy : 1;
    unsigned : 0;                    /* starts a new storage unit */
    unsigned error : 1;
    uint8_t mode;                    /* not a bit-field: its own memory location */
};
volatile struct status st;

void USART2_IRQHandler(void)
{
    st.rx_ready = 1;
    st.mode = 2;
}

int main(void)
{
    __enable_irq();
    st.tx_busy = 1;                  /* loses a store to rx_ready */
    st.error = 1;                    /* another location: after the zero-width bit-field */
    st.mode = 1;
    return 0;
}
