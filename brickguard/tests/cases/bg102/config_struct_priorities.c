/* Priorities an SDK takes in a configuration struct, read by the fields' names: the line field
   (an IRQn enumerator) and the priority field beside it (PDL's intrSrc/intrPriority, FSP's
   irq/ipl; a sub-priority is not one). */
#include "cmsis_stub.h"

typedef enum { TIM2_IRQn = 28, TIM3_IRQn = 29, USART1_IRQn = 37 } IRQn_Type;
typedef struct { IRQn_Type intrSrc; uint32_t intrPriority; } sysint_cfg_t;
typedef struct { uint8_t channel; uint8_t ipl; IRQn_Type irq; uint8_t sub_prio; } ext_cfg_t;
int sysint_init(const sysint_cfg_t *cfg);
int ext_open(const ext_cfg_t *cfg);

static const sysint_cfg_t tim2_cfg = {TIM2_IRQn, 1u};
static const ext_cfg_t usart_cfg = {.channel = 3u, .ipl = 5u, .irq = USART1_IRQn, .sub_prio = 0u};
static const ext_cfg_t tim3_cfg = {.channel = 4u, .ipl = 5u, .irq = TIM3_IRQn, .sub_prio = 2u};

volatile uint32_t events, peers;

void TIM2_IRQHandler(void)               /* 1: the most urgent */
{
    events++;
}

void USART1_IRQHandler(void)             /* 5 */
{
    events--;                            /* expect: BG102 */
    peers++;
}

void TIM3_IRQHandler(void)               /* 5 as well: no preemption between the two */
{
    peers--;
}

int main(void)
{
    (void)sysint_init(&tim2_cfg);
    (void)ext_open(&usart_cfg);
    (void)ext_open(&tim3_cfg);
    __enable_irq();
    for (;;) {
    }
}
