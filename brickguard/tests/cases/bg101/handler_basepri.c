/* A handler that raises BASEPRI around a helper it shares with a more urgent handler: the
   helper's accesses are masked there as far as BASEPRI reaches. With 3 priority bits 0x20 masks
   levels 1..7 (TIM2 at 1 included); 0x60 masks only 3..7, and TIM2 still preempts. */
#include "cmsis_stub.h"

#define __NVIC_PRIO_BITS 3U
typedef enum { TIM2_IRQn = 28, USART1_IRQn = 37 } IRQn_Type;
void NVIC_SetPriority(IRQn_Type irq, uint32_t priority);
void __set_BASEPRI(uint32_t value);

volatile uint32_t log_idx, err_idx;

static void log_put(void)
{
    uint32_t i = log_idx;
    log_idx = i + 1u;
}

static void err_put(void)
{
    uint32_t i = err_idx;
    err_idx = i + 1u;                /* expect: BG101 */
}

void TIM2_IRQHandler(void)           /* level 1 */
{
    log_put();
    err_put();
}

void USART1_IRQHandler(void)         /* level 3 */
{
    __set_BASEPRI(0x20u);
    log_put();
    __set_BASEPRI(0u);
    __set_BASEPRI(0x60u);
    err_put();
    __set_BASEPRI(0u);
}

int main(void)
{
    NVIC_SetPriority(TIM2_IRQn, 1u);
    NVIC_SetPriority(USART1_IRQn, 3u);
    __enable_irq();
    for (;;) {
    }
}
