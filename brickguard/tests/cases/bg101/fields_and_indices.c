/* Field- and index-sensitive accesses: only overlapping parts conflict. */
#include "cmsis_stub.h"

typedef struct {
    volatile uint32_t status;
    uint8_t rx_buf[8];
    uint32_t lock;
} dev_t;

typedef union {
    uint32_t word;
    uint8_t bytes[4];
} reg_t;

dev_t dev[2];
volatile uint32_t counts[4];
volatile uint64_t stamp[2];
reg_t shadow;

void USART2_IRQHandler(void)
{
    dev[1].status = 1u;              /* the handler writes status of one device */
    counts[2]++;
    stamp[1] = 7u;
    shadow.word = 5u;
}

int main(void)
{
    __enable_irq();                  /* from here on a handler can fire */
    dev[1].rx_buf[0] = 0u;           /* another field: no conflict */
    dev[0].lock = 1u;
    dev[0].lock = 0u;                /* the handler never touches lock */
    counts[3]++;                     /* another constant index */
    counts[1 + 1]--;                 /* index not a literal: may be any, so [2] */ /* expect: BG102 */
    stamp[0] = 1u;                   /* 8 bytes, but another element */
    uint64_t t = stamp[1];           /* expect: BG103 */ /* soak: no race here: one ldrd on the M4, which no interrupt splits, and the handler's store of 7 leaves the high word 0, so even two ldr could not tear it */
    shadow.bytes[0]++;               /* a union member overlaps every member */ /* expect: BG102 */
                                     /* (not volatile, but read once, in no loop: no BG104) */
    return (int)t;
}
