/* Drive status word: the CCU40 slice 0 handler counts over-current trips in the status word that
 * the host reads; main stores the operating mode the host selected in the same word. */
#include "xmc4500.h"

struct drive_status {
    uint32_t trips : 8;
    uint32_t mode : 4;
    uint32_t reserved : 20;
};

static volatile struct drive_status g_status;
static uint32_t s_last_mode;

void CCU40_0_IRQHandler(void)
{
    XMC_CCU4_SLICE_ClearEvent(CCU40_CC40, XMC_CCU4_SLICE_IRQ_ID_COMPARE_MATCH_UP);
    if (XMC_GPIO_GetInput(XMC_GPIO_PORT1, 3U) != 0U) {
        g_status.trips++;
    }
}

int main(void)
{
    SystemCoreClockUpdate();
    NVIC_SetPriority(CCU40_0_IRQn, 12U);
    NVIC_EnableIRQ(CCU40_0_IRQn);
    XMC_CCU4_SLICE_StartTimer(CCU40_CC40);
    for (;;) {
        uint32_t mode = XMC_GPIO_GetInput(XMC_GPIO_PORT1, 0U) | (XMC_GPIO_GetInput(XMC_GPIO_PORT1, 1U) << 1);
        if (mode != s_last_mode) {
            s_last_mode = mode;
            g_status.mode = mode & 0xFU;
        }
        led_show(g_status.trips);
    }
}
