/* Power budget: CCU40 slice 0 refills the budget every 100 us; CCU40 slice 1 charges the cost of
 * each heater pulse it starts. Grouping 3 leaves 4 pre-emption bits and 2 sub-priority bits. */
#include "xmc4500.h"

#define BUDGET_MAX 4000U

static volatile uint32_t g_budget = BUDGET_MAX;
static uint32_t s_pulses;

void CCU40_0_IRQHandler(void)
{
    XMC_CCU4_SLICE_ClearEvent(CCU40_CC40, XMC_CCU4_SLICE_IRQ_ID_PERIOD_MATCH);
    uint32_t b = g_budget + 40U;
    g_budget = (b > BUDGET_MAX) ? BUDGET_MAX : b;
}

void CCU40_1_IRQHandler(void)
{
    XMC_CCU4_SLICE_ClearEvent(CCU40_CC41, XMC_CCU4_SLICE_IRQ_ID_PERIOD_MATCH);
    uint32_t cost = cost_of_next_job();
    if (g_budget >= cost) {
        g_budget -= cost;
        s_pulses++;
        heater_set(cost);
    }
}

int main(void)
{
    SystemCoreClockUpdate();
    NVIC_SetPriorityGrouping(3U);
    NVIC_SetPriority(CCU40_0_IRQn, NVIC_EncodePriority(3U, 10U, 0U));
    NVIC_SetPriority(CCU40_1_IRQn, NVIC_EncodePriority(3U, 12U, 1U));
    NVIC_EnableIRQ(CCU40_0_IRQn);
    NVIC_EnableIRQ(CCU40_1_IRQn);
    XMC_CCU4_SLICE_StartTimer(CCU40_CC40);
    XMC_CCU4_SLICE_StartTimer(CCU40_CC41);
    for (;;) {
        led_show(g_budget * 8U / BUDGET_MAX);
    }
}
