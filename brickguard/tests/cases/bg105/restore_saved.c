/* A section that saves PRIMASK and sets it with a constant spelled by a macro, then restores the
   saved value: balanced (the set masks, it is no restore). */
#include "cmsis_stub.h"

#define MASK_SET (1U)
#define SECTION_ENTER old = __get_PRIMASK(); __set_PRIMASK(MASK_SET)
#define SECTION_EXIT __set_PRIMASK(old)

volatile uint32_t count;

void TIM2_IRQHandler(void)
{
    count++;
}

int main(void)
{
    __enable_irq();
    for (;;) {
        uint32_t old = 0u;
        SECTION_ENTER;
        count = 0u;
        SECTION_EXIT;
        SECTION_EXIT;                    /* expect: BG105 */
    }
}
