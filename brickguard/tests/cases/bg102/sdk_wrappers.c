/* Critical sections an SDK defines itself, inline in its headers: what their bodies write to
   PRIMASK or BASEPRI says what they mask (no table names these functions). */
#include "cmsis_stub.h"

#define __NVIC_PRIO_BITS 3u
typedef enum { TIM2_IRQn = 28, USART1_IRQn = 37 } IRQn_Type;
void HAL_NVIC_SetPriority(IRQn_Type irq, uint32_t preempt, uint32_t sub);

static inline uint32_t sdk_irq_save(void)
{
    uint32_t s;
    __asm volatile("mrs %0, PRIMASK\n"
                   "cpsid i" : "=r"(s)::"memory");
    return s;
}
static inline void sdk_irq_restore(uint32_t s) { __asm volatile("msr PRIMASK, %0" ::"r"(s) : "memory"); }
static inline uint32_t sdk_lock(void) { return sdk_irq_save(); }  /* a wrapper of a wrapper */
static inline void sdk_unlock(uint32_t s) { sdk_irq_restore(s); }
static inline void sdk_raise(void)      /* BASEPRI 0x80: level 4 with 3 priority bits */
{
    uint32_t v = 4u << (8u - __NVIC_PRIO_BITS);
    __asm volatile("msr basepri, %0" ::"r"(v) : "memory");
}
static inline void sdk_raise_const(void) { __asm volatile("msr basepri, %0" ::"i"(0x80) : "memory"); }
static inline void sdk_lower(void) { __asm volatile("msr basepri, %0" ::"r"(0u) : "memory"); }
static inline uint32_t sdk_peek(void)   /* reads the mask: no section */
{
    uint32_t s;
    __asm volatile("mrs %0, PRIMASK" : "=r"(s));
    return s;
}

volatile uint32_t saved_count, locked_count, peeked_count, fast_count, slow_count;

void TIM2_IRQHandler(void)               /* priority 2: above level 4 */
{
    saved_count++;
    locked_count++;
    peeked_count++;
    fast_count++;
}

void USART1_IRQHandler(void)             /* priority 6: masked by level 4 */
{
    slow_count++;
}

int main(void)
{
    HAL_NVIC_SetPriority(TIM2_IRQn, 2u, 0u);
    HAL_NVIC_SetPriority(USART1_IRQn, 6u, 0u);
    __enable_irq();
    for (;;) {
        uint32_t s = sdk_irq_save();
        saved_count--;                   /* PRIMASK set by the inline body */
        sdk_irq_restore(s);
        s = sdk_lock();
        locked_count--;
        sdk_unlock(s);
        s = sdk_peek();
        peeked_count--;                  /* expect: BG102 */
        (void)s;
        sdk_raise();                     /* level 4 masks USART1 at 6 */
        slow_count--;
        sdk_lower();
        sdk_raise_const();
        fast_count--;                    /* expect: BG102 */ /* TIM2 at 2 is above level 4 */
        sdk_lower();
    }
}
