/* The same as encoded_priorities.c with the encoder in the shape of CMSIS's own
   NVIC_EncodePriority: locals declared first and set by plain stores, arithmetic in uint32_t
   that wraps ((g - 7) + bits when the grouping leaves sub-priority bits). */
#include <stdint.h>

#define __NVIC_PRIO_BITS 5u

typedef enum { DMA0_IRQn = 8, DMA1_IRQn = 9, DMA2_IRQn = 10 } IRQn_Type;
void NVIC_SetPriority(IRQn_Type irq, uint32_t priority);
void NVIC_SetPriorityGrouping(uint32_t group);
void NVIC_EnableIRQ(IRQn_Type irq);

static inline uint32_t prio_pack(uint32_t group, uint32_t preempt, uint32_t sub)
{
    uint32_t g = group & 7u;
    uint32_t pre_bits;
    uint32_t sub_bits;

    pre_bits = ((7u - g) > __NVIC_PRIO_BITS) ? __NVIC_PRIO_BITS : (7u - g);
    sub_bits = ((g + __NVIC_PRIO_BITS) < 7u) ? 0u : ((g - 7u) + __NVIC_PRIO_BITS);
    return ((preempt & ((1u << pre_bits) - 1u)) << sub_bits) | (sub & ((1u << sub_bits) - 1u));
}

volatile uint32_t credit, blocks;

void DMA0_IRQHandler(void)
{
    credit += 8u;
    blocks += 1u;
}

void DMA1_IRQHandler(void)
{
    credit -= 1u;                /* expect: BG102 */
}

void DMA2_IRQHandler(void)
{
    blocks -= 1u;                /* same pre-emption level as DMA0: sub-priority only */
}

int main(void)
{
    NVIC_SetPriorityGrouping(4u);
    NVIC_SetPriority(DMA0_IRQn, prio_pack(4u, 1u, 0u));
    NVIC_SetPriority(DMA1_IRQn, prio_pack(4u, 2u, 0u));
    NVIC_SetPriority(DMA2_IRQn, prio_pack(4u, 1u, 5u));
    NVIC_EnableIRQ(DMA0_IRQn);
    NVIC_EnableIRQ(DMA1_IRQn);
    NVIC_EnableIRQ(DMA2_IRQn);
    for (;;) {
    }
}
