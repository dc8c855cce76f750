/* The oracle per memory location: which location of a non-serializable run breaks alone. */
#include <stdint.h>

struct flags {
    unsigned rx : 1;
    unsigned tx : 1;
    unsigned : 0;          /* a new storage unit: another location */
    unsigned err : 1;
    uint8_t mode;          /* not a bit-field: a location of its own */
};
volatile struct flags fl;
volatile uint32_t a, b, sum;
volatile uint8_t buf[4];
volatile uint64_t stamp;

void TIM2_IRQHandler(void)
{
    a = 2u;
    b = 2u;
    buf[1] = 9u;
}

/* Two independent stores: with the handler between them, `a` ends as with the handler
   before and `b` as with it after. Each location alone is serial; only the pair is not. */
void two_stores(void)
{
    a = 1u;
    b = 1u;
}

/* One location read twice, the handler's write between: neither order gives both values. */
void read_twice(void)
{
    uint8_t first = buf[1];
    sum = first + buf[1];
}
