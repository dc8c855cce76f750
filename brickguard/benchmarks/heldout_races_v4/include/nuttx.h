/* Apache NuttX on an STM32F4 board (flat build), the parts of <nuttx/irq.h>, <nuttx/arch.h>,
 * <nuttx/wdog.h>, <sched.h> and arm_internal.h this corpus uses.
 * - enter_critical_section()/leave_critical_section(): on a single-CPU build without
 *   CONFIG_ARMV7M_USEBASEPRI they are up_irq_save()/up_irq_restore(): PRIMASK.
 * - irq_attach(irq, isr, arg) installs isr as the handler of vector irq; isr(irq, context, arg)
 *   runs in interrupt context; up_prioritize_irq() takes an 8-bit NVIC value (0x00 most urgent,
 *   4 bits implemented, NVIC_SYSH_PRIORITY_DEFAULT 0x80).
 * - wd_start() callbacks run from the system timer interrupt (interrupt context).
 * - sched_lock() stops task switching only: interrupts still run. */
#ifndef NUTTX_H
#define NUTTX_H
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

#define FAR
#define OK 0
typedef uint32_t irqstate_t;
typedef int32_t sclock_t;
typedef uintptr_t wdparm_t;
typedef int (*xcpt_t)(int irq, FAR void *context, FAR void *arg);

static inline irqstate_t up_irq_save(void)
{
    unsigned int primask;
    __asm__ __volatile__("\tmrs %0, primask\n\tcpsid i\n" : "=r"(primask) : : "memory");
    return primask;
}
static inline void up_irq_restore(irqstate_t flags)
{
    __asm__ __volatile__("\ttst %0, #1\n\tbne.n 1f\n\tcpsie i\n1:\n" : : "r"(flags) : "memory");
}
#define enter_critical_section() up_irq_save()
#define leave_critical_section(f) up_irq_restore(f)

int irq_attach(int irq, xcpt_t isr, FAR void *arg);
void up_enable_irq(int irq);
void up_disable_irq(int irq);
int up_prioritize_irq(int irq, int priority);
#define NVIC_SYSH_PRIORITY_DEFAULT 0x80
#define NVIC_SYSH_PRIORITY_STEP 0x10

int sched_lock(void);
int sched_unlock(void);
int usleep(uint32_t usec);

struct wdog_s {
    FAR struct wdog_s *next;
    void (*func)(wdparm_t arg);
    wdparm_t arg;
    sclock_t lag;
};
typedef void (*wdentry_t)(wdparm_t arg);
int wd_start(FAR struct wdog_s *wdog, sclock_t delay, wdentry_t wdentry, wdparm_t arg);
int wd_cancel(FAR struct wdog_s *wdog);
#define MSEC2TICK(ms) ((sclock_t)(ms))

#define getreg32(a) (*(volatile uint32_t *)(a))
#define putreg32(v, a) (*(volatile uint32_t *)(a) = (v))

#define STM32_IRQ_FIRST 16
#define STM32_IRQ_TIM3 (STM32_IRQ_FIRST + 29)
#define STM32_IRQ_TIM4 (STM32_IRQ_FIRST + 30)
#define STM32_IRQ_USART3 (STM32_IRQ_FIRST + 39)
#define STM32_TIM3_SR 0x40000410UL
#define STM32_TIM3_CCR1 0x40000434UL
#define STM32_TIM4_SR 0x40000810UL
#define STM32_USART3_SR 0x40004800UL
#define STM32_USART3_DR 0x40004804UL
#define USART_SR_RXNE (1U << 5)

int radio_send(const uint8_t *frame, size_t len);
int radio_next_frame(uint8_t *frame, size_t cap);
void printf_stats(uint32_t count, uint32_t sum);
void shell_feed(FAR void *ctx, uint8_t c);
void led_blink(uint32_t on_ms);
uint32_t load_sample(void);
#endif
