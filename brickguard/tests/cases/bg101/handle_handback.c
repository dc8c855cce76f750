/* The gate that closes again: a HAL driver's handler ends a transfer by disabling its family's
   interrupt sources and handing the handle back (State = READY); a start function that tests
   State first sets the handle up with no interrupt of that family able to fire, until its own
   __HAL_xxx_ENABLE_IT. Twins that race: a family whose handler never disables its sources
   (SPI), and a start that does not test the handle's state first (UART). */
#include "cmsis_stub.h"

typedef enum { I2C1_EV_IRQn = 31, SPI1_IRQn = 35, USART1_IRQn = 37 } IRQn_Type;
typedef struct { volatile uint32_t CR2; } PERIPH_TypeDef;
typedef struct {
    PERIPH_TypeDef *Instance;
    volatile uint32_t State;
    volatile uint32_t XferCount;
    volatile uint32_t XferSize;
} HANDLE_TypeDef;
#define READY 1u
#define BUSY 2u
#define __HAL_I2C_ENABLE_IT(h, it) ((h)->Instance->CR2 |= (it))
#define __HAL_I2C_DISABLE_IT(h, it) ((h)->Instance->CR2 &= ~(it))
#define __HAL_SPI_ENABLE_IT(h, it) ((h)->Instance->CR2 |= (it))
#define __HAL_UART_ENABLE_IT(h, it) ((h)->Instance->CR2 |= (it))
#define __HAL_UART_DISABLE_IT(h, it) ((h)->Instance->CR2 &= ~(it))
void HAL_NVIC_EnableIRQ(IRQn_Type irq);

HANDLE_TypeDef hi2c;
HANDLE_TypeDef hspi;
HANDLE_TypeDef huart;

void HAL_I2C_EV_IRQHandler(HANDLE_TypeDef *h)
{
    if (h->XferCount > 0u) {
        h->XferCount--;
        return;
    }
    __HAL_I2C_DISABLE_IT(h, 7u);     /* the transfer is over: no I2C interrupt from here */
    h->State = READY;
}

void HAL_SPI_IRQHandler(HANDLE_TypeDef *h)
{
    if (h->XferCount > 0u) {
        h->XferCount--;
    }
    h->State = READY;                /* its sources stay on: the gate never closes */
}

void HAL_UART_IRQHandler(HANDLE_TypeDef *h)
{
    if (h->XferCount > 0u) {
        h->XferCount--;
        return;
    }
    __HAL_UART_DISABLE_IT(h, 7u);
    h->State = READY;
}

void I2C1_EV_IRQHandler(void) { HAL_I2C_EV_IRQHandler(&hi2c); }
void SPI1_IRQHandler(void) { HAL_SPI_IRQHandler(&hspi); }
void USART1_IRQHandler(void) { HAL_UART_IRQHandler(&huart); }

int HAL_I2C_Master_Transmit_IT(HANDLE_TypeDef *h, uint32_t n)
{
    if (h->State == READY) {
        h->State = BUSY;             /* the last transfer's handler switched I2C off */
        h->XferCount = n;
        h->XferSize = h->XferCount;
        __HAL_I2C_ENABLE_IT(h, 7u);
        h->XferSize = h->XferCount;  /* expect: BG101 */
        return 0;
    }
    return 1;
}

int HAL_SPI_Transmit_IT(HANDLE_TypeDef *h, uint32_t n)
{
    if (h->State == READY) {
        h->State = BUSY;             /* expect: BG101 */
        h->XferCount = n;
        h->XferSize = h->XferCount;  /* expect: BG101 */
        __HAL_SPI_ENABLE_IT(h, 7u);
        return 0;
    }
    return 1;
}

int HAL_UART_Transmit_IT(HANDLE_TypeDef *h, uint32_t n)
{
    h->State = BUSY;
    h->XferCount = n;
    h->XferSize = h->XferCount;      /* expect: BG101 */
    __HAL_UART_ENABLE_IT(h, 7u);
    return 0;
}

int main(void)
{
    HAL_NVIC_EnableIRQ(I2C1_EV_IRQn);
    HAL_NVIC_EnableIRQ(SPI1_IRQn);
    HAL_NVIC_EnableIRQ(USART1_IRQn);
    for (;;) {
        (void)HAL_I2C_Master_Transmit_IT(&hi2c, 4u);
        (void)HAL_SPI_Transmit_IT(&hspi, 4u);
        (void)HAL_UART_Transmit_IT(&huart, 4u);
    }
}
