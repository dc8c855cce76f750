/* Small scenarios for the soak tests: each function is a scenario, a check or a handler. */
#include <stdint.h>
#include "bg_soak.h"

#define NVIC_ISER0 (*(volatile uint32_t *)0xE000E100UL)
#define NVIC_IPR(n) (*(volatile uint8_t *)(0xE000E400UL + (n)))
#define TIM2_IRQn 28u
#define STATUS (*(volatile uint32_t *)0x40000010UL)  /* a scripted status register */

volatile uint32_t count, ticks, calls, ready, served, level;
uint32_t stub_value(void); /* defined nowhere: soak links a stub that returns 0 */

void TIM2_IRQHandler(void)
{
    count++;
    ticks++;
}

void SPI1_IRQHandler(void)
{
    while (!ready) {
    }
    served++;
}

void bump(void)
{
    count = count + 1u; /* read-modify-write: the handler's increment can be lost */
    calls++;
}

void bump_masked(void)
{
    __asm volatile("cpsid i" ::: "memory");
    count = count + 1u;
    __asm volatile("cpsie i" ::: "memory");
    calls++;
}

uint32_t DisableGlobalIRQ(void);      /* a vendor SDK's pair (nxp-mcux), defined nowhere */
void EnableGlobalIRQ(uint32_t primask);

void bump_vendor_locked(void)         /* the pair's stand-ins mask as the profile says it does */
{
    uint32_t primask = DisableGlobalIRQ();
    count = count + 1u;
    EnableGlobalIRQ(primask);
}

void bump_basepri(void)
{
    uint32_t mask = 0x40u;
    __asm volatile("msr basepri, %0" : : "r"(mask) : "memory");
    count = count + 1u;
    mask = 0u;
    __asm volatile("msr basepri, %0" : : "r"(mask) : "memory");
    calls++;
}

void nvic_low(void) /* TIM2 enabled at priority 0x80: BASEPRI 0x40 masks it */
{
    NVIC_IPR(TIM2_IRQn) = 0x80u;
    NVIC_ISER0 = 1u << TIM2_IRQn;
}

void nvic_urgent(void) /* TIM2 at priority 0x20: BASEPRI 0x40 does not mask it */
{
    NVIC_IPR(TIM2_IRQn) = 0x20u;
    NVIC_ISER0 = 1u << TIM2_IRQn;
}

int count_matches(void) /* the check: every increment counted once */
{
    return count != ticks + calls;
}

void assert_stable(void)
{
    uint32_t first = count;
    BG_SOAK_ASSERT(count == first);
    calls++;
}

void handshake(void)
{
    ready = 1u;
    level = 2u;
    ready = 0u;
}

void faulting(void)
{
    *(volatile uint32_t *)0x10000000UL = 1u; /* nothing is mapped there */
}

void stubbed(void)
{
    calls = stub_value();
    if (STATUS & 0x80u) {
        count = count + 1u;
    }
}

volatile uint32_t other, picked;

void OTHER_IRQHandler(void) /* touches only `other`: it cannot change what the scenario computes */
{
    other++;
}

void choose(void) /* conditional execution (an IT block on v7-M): interrupts land inside it */
{
    for (uint32_t i = 0; i < 6u; i++) {
        uint32_t seen = other;
        picked = (i & 1u) ? picked + seen + 3u : picked ^ (seen + 5u);
    }
}

void USART1_IRQHandler(void) /* a handler as the scenario: only a more urgent one nests in it */
{
    count = count + 1u;
    calls++;
}

void coarse_groups(void) /* AIRCR.PRIGROUP = 6: bits 6:0 are subpriority, 0x20 and 0x40 tie */
{
    *(volatile uint32_t *)0xE000ED0CUL = 0x05FA0600UL;
    nvic_urgent();
}

struct pair { uint32_t a, b, c; };
volatile struct pair pair_g, pair_seen;

void PAIR_IRQHandler(void) /* writes every field: a copy must see all old or all new */
{
    pair_g.a = pair_g.a + 1u;
    pair_g.b = pair_g.b + 1u;
    pair_g.c = pair_g.c + 1u;
}

void copy_pair(void) /* one ldm on v7-M: a core may take the interrupt between its loads */
{
    struct pair copy = pair_g;
    pair_seen.a = copy.a;
    pair_seen.b = copy.b;
    pair_seen.c = copy.c;
}

void start_it(void) { __asm volatile("" ::: "memory"); } /* the transfer start that arms it */

void bump_then_start(void)
{
    count = count + 1u; /* before the start: the gated handler cannot fire here */
    start_it();
    calls = calls + 1u;
}

volatile uint32_t flag;

void FLAG_IRQHandler(void)
{
    flag = 1u;
    count = count + 1u;
}

void wait_then_bump(void) /* waits for the interrupt, then a lost update */
{
    while (!flag) {
    }
    flag = 0u;
    count = count + 1u; /* after the wait */
}
