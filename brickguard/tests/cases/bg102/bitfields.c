/* Adjacent bit-fields are one memory location (C11 6.7.2.1): a store to one of them loads,
   merges and stores the word they share, so the handler's store to a neighbour between the
   load and the store is lost. A bit-field after a zero-width one, or a plain member, is a
   location of its own. */
#include "cmsis_stub.h"

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
    st.tx_busy = 1;                  /* expect: BG102 */ /* soak: no race here: the handler's store this loses is rx_ready = 1, and the next line clears rx_ready before any code uses it (ldrb, orr, strb here; ldrb, bfc, strb there): every run ends as with the handler first; without that line soak confirms it (tests/test_soak.py, a variant of this file) */
    st.rx_ready = 0;                 /* the same bit-field: the handler's store is not lost */
    st.error = 1;                    /* another location: after the zero-width bit-field */
    st.mode = 1;
    return 0;
}
