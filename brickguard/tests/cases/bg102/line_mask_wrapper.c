/* An SDK's own one-line mask: its body writes the NVIC clear-enable word for the line its
   parameter names (and the set-enable word to undo it). Between the two only that line's
   handler is held off. */
#include <stdint.h>

typedef enum { RTC_IRQn = 3, GPIO_IRQn = 11 } IRQn_Type;
typedef struct {
    volatile uint32_t ISER[8];
    uint32_t reserved0[24];
    volatile uint32_t ICER[8];
} NVIC_Type;
#define NVIC ((NVIC_Type *)0xE000E100UL)
void NVIC_EnableIRQ(IRQn_Type irq);

static inline void line_off(IRQn_Type n)
{
    NVIC->ICER[((uint32_t)n) >> 5] = 1u << (((uint32_t)n) & 31u);
}
static inline void line_on(IRQn_Type n)
{
    NVIC->ISER[((uint32_t)n) >> 5] = 1u << (((uint32_t)n) & 31u);
}

volatile uint32_t rtc_ticks, edges;

void RTC_IRQHandler(void)
{
    rtc_ticks++;
}

void GPIO_IRQHandler(void)
{
    edges++;
}

int main(void)
{
    NVIC_EnableIRQ(RTC_IRQn);
    NVIC_EnableIRQ(GPIO_IRQn);
    for (;;) {
        line_off(RTC_IRQn);
        rtc_ticks = rtc_ticks / 2u;  /* RTC is masked: its handler cannot fire in between */
        edges = edges / 2u;          /* expect: BG102 */
        line_on(RTC_IRQn);
    }
}
