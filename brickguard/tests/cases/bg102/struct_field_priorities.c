/* Priorities handed over in a struct the code fills field by field before the call: SPL's
   NVIC_InitTypeDef (the line in one field, the pre-emption priority in another, reused for
   each line) and TI-RTOS's Hwi_Params (the priority in the struct, the line and the handler
   in the call's own arguments). TIM2 (pre-emption 1) preempts USART1 (2); TIM3 has USART1's
   pre-emption priority (its sub-priority differs, which orders only pending ones). The Hwi
   at 0x00 is below the BASEPRI that the task's section raises (0x20), so it still fires. */
#include "cmsis_stub.h"

typedef enum { TIM2_IRQn = 28, TIM3_IRQn = 29, USART1_IRQn = 37 } IRQn_Type;
typedef struct {
    uint8_t NVIC_IRQChannel;
    uint8_t NVIC_IRQChannelPreemptionPriority;
    uint8_t NVIC_IRQChannelSubPriority;
    uint8_t NVIC_IRQChannelCmd;
} NVIC_InitTypeDef;
void NVIC_Init(NVIC_InitTypeDef *init);

typedef struct { int priority; void *arg; } Hwi_Params;
typedef void (*Hwi_FuncPtr)(uintptr_t arg);
void Hwi_Params_init(Hwi_Params *p);
void *Hwi_create(int intNum, Hwi_FuncPtr fxn, const Hwi_Params *p, void *eb);
#define INT_GPIOA 16
void __set_BASEPRI(uint32_t value);

volatile uint32_t activity, frames, steps;

void USART1_IRQHandler(void)
{
    activity++;                  /* expect: BG102 */
    frames++;                    /* TIM3 has the same pre-emption priority */
}

void TIM2_IRQHandler(void)
{
    activity++;
}

void TIM3_IRQHandler(void)
{
    frames--;
}

static void step_hwi(uintptr_t arg)
{
    (void)arg;
    steps++;
}

static void control(void)
{
    __set_BASEPRI(0x20u);        /* masks priority 2 and less urgent, not the Hwi */
    steps -= 40u;                /* expect: BG102 */
    __set_BASEPRI(0u);
}

int main(void)
{
    NVIC_InitTypeDef n;
    Hwi_Params hp;
    n.NVIC_IRQChannel = USART1_IRQn;
    n.NVIC_IRQChannelPreemptionPriority = 2;
    n.NVIC_IRQChannelSubPriority = 0;
    n.NVIC_IRQChannelCmd = 1;
    NVIC_Init(&n);
    n.NVIC_IRQChannel = TIM2_IRQn;
    n.NVIC_IRQChannelPreemptionPriority = 1;
    n.NVIC_IRQChannelSubPriority = 3;
    NVIC_Init(&n);
    n.NVIC_IRQChannel = TIM3_IRQn;
    n.NVIC_IRQChannelPreemptionPriority = 2;
    n.NVIC_IRQChannelSubPriority = 1;
    NVIC_Init(&n);
    Hwi_Params_init(&hp);
    hp.priority = 0x00;
    (void)Hwi_create(INT_GPIOA, step_hwi, &hp, NULL);
    for (;;) {
        control();
    }
}
