/* A callback handed to a body-less sign-in call in a struct that names its line too (HC32's
   stc_irq_signin_config_t {source, INTnnn_IRQn, callback}), directly or through the program's
   own wrapper that stores its parameters there (irq_register(src, irq, cb, prio)): the
   callback runs on that line, at the priority the code gives it. The rx callback (3) gets
   through main's BASEPRI 5; the timer callback (8) is preempted by the ADC callback (3). */
#include <stdint.h>

#define __NVIC_PRIO_BITS 4u
#define INT000_IRQn 0
#define INT001_IRQn 1
#define INT002_IRQn 2
#define INT_SRC_TMR0 10
#define INT_SRC_ADC 11
#define INT_SRC_USART1_RI 12

typedef void (*func_ptr_t)(void);
typedef struct { uint32_t enIntSrc; int enIRQn; func_ptr_t pfnCallback; } irq_signin_t;
int INTC_IrqSignIn(const irq_signin_t *cfg);
void NVIC_SetPriority(int irq, uint32_t prio);
void NVIC_EnableIRQ(int irq);
void __set_BASEPRI(uint32_t value);

volatile uint32_t pending, level;

static void rx_callback(void)
{
    pending++;
}

static void tmr_callback(void)
{
    level += 2u;                 /* expect: BG102 */
}

static void adc_callback(void)
{
    level -= 1u;
}

static void irq_register(uint32_t src, int irq, func_ptr_t cb, uint32_t prio)
{
    irq_signin_t cfg;
    cfg.enIntSrc = src;
    cfg.enIRQn = irq;
    cfg.pfnCallback = cb;
    (void)INTC_IrqSignIn(&cfg);
    NVIC_SetPriority(irq, prio);
    NVIC_EnableIRQ(irq);
}

int main(void)
{
    irq_signin_t cfg = {INT_SRC_USART1_RI, INT002_IRQn, rx_callback};
    (void)INTC_IrqSignIn(&cfg);
    NVIC_SetPriority(INT002_IRQn, 3u);
    NVIC_EnableIRQ(INT002_IRQn);
    irq_register(INT_SRC_TMR0, INT000_IRQn, tmr_callback, 8u);
    irq_register(INT_SRC_ADC, INT001_IRQn, adc_callback, 3u);
    for (;;) {
        __set_BASEPRI(5u << 4);
        pending--;               /* expect: BG102 */
        __set_BASEPRI(0u);
    }
}
