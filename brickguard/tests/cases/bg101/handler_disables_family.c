/* A handler that disables every interrupt source its family enables closes the family's gate
   behind itself: the more urgent error handler of the same peripheral cannot preempt what
   follows. Before the disable it can (the read of State races the write after); a disable
   naming fewer sources (EVT alone) leaves the error interrupt on. */
#include "cmsis_stub.h"

typedef enum { I2C1_EV_IRQn = 31, I2C1_ER_IRQn = 32 } IRQn_Type;
typedef struct { volatile uint32_t CR2; } I2C_TypeDef;
typedef struct {
    I2C_TypeDef *Instance;
    volatile uint32_t State;
    volatile uint32_t ErrorCode;
    volatile uint32_t XferCount;
} I2C_HandleTypeDef;
#define I2C_IT_EVT 1u
#define I2C_IT_ERR 2u
#define READY 1u
#define __HAL_I2C_ENABLE_IT(h, it) ((h)->Instance->CR2 |= (it))
#define __HAL_I2C_DISABLE_IT(h, it) ((h)->Instance->CR2 &= ~(it))
void HAL_NVIC_SetPriority(IRQn_Type irq, uint32_t pre, uint32_t sub);
void HAL_NVIC_EnableIRQ(IRQn_Type irq);

I2C_HandleTypeDef hi2c;

void HAL_I2C_ER_IRQHandler(I2C_HandleTypeDef *h)
{
    if ((h->Instance->CR2 & I2C_IT_ERR) != 0u) {
        h->ErrorCode |= 1u;
        h->State = READY;
        h->XferCount = 0u;
    }
}

static void I2C_Stop(I2C_HandleTypeDef *h)
{
    uint32_t state = h->State;
    __HAL_I2C_DISABLE_IT(h, I2C_IT_EVT | I2C_IT_ERR);
    if (state != READY) {
        h->State = READY;            /* expect: BG101 */ /* soak: no race here: hi2c.Instance is never set, so CR2 is the word at address 0 (flash: the initial stack pointer, ERR bit clear) and the error handler never writes; with Instance on registers, ERR enabled, soak confirms it (tests/test_soak.py, a variant of this file) */
    }
    h->ErrorCode |= 4u;              /* the error interrupt is off: nothing preempts now */
}

static void I2C_Next(I2C_HandleTypeDef *h)
{
    __HAL_I2C_DISABLE_IT(h, I2C_IT_EVT);
    h->XferCount--;                  /* expect: BG102 */ /* soak: no race here: no code sets XferCount non-zero (0 from reset, the error handler writes 0), so I2C_Next never runs; with XferCount set soak confirms it (the same variant) */
}

void HAL_I2C_EV_IRQHandler(I2C_HandleTypeDef *h)
{
    if (h->XferCount == 0u) {
        I2C_Stop(h);
    } else {
        I2C_Next(h);
    }
}

void I2C1_EV_IRQHandler(void) { HAL_I2C_EV_IRQHandler(&hi2c); }
void I2C1_ER_IRQHandler(void) { HAL_I2C_ER_IRQHandler(&hi2c); }

int main(void)
{
    HAL_NVIC_SetPriority(I2C1_ER_IRQn, 1u, 0u);
    HAL_NVIC_SetPriority(I2C1_EV_IRQn, 2u, 0u);
    HAL_NVIC_EnableIRQ(I2C1_EV_IRQn);
    HAL_NVIC_EnableIRQ(I2C1_ER_IRQn);
    __HAL_I2C_ENABLE_IT(&hi2c, I2C_IT_EVT | I2C_IT_ERR);
    for (;;) {
    }
}
