/* Water meter on an STM32L431 with TencentOS tiny: TIM2 reads the flow sensor's pulse counter
 * every 100 ms and adds it to the running statistics through a helper; the uplink task takes
 * the statistics every 15 minutes with another helper, interrupts disabled, and sends them over NB-IoT. */
#include "tos_k.h"

struct flow_stats {
    uint32_t pulses;
    uint32_t samples;
    uint16_t peak;
};

static struct flow_stats g_flow;
static k_task_t s_uplink_task;
static k_stack_t s_uplink_stack[512];

static void stats_add(struct flow_stats *st, uint16_t n)
{
    st->pulses += n;
    st->samples++;
    if (n > st->peak) {
        st->peak = n;
    }
}

static void stats_take(struct flow_stats *st, struct flow_stats *out)
{
    *out = *st;
    memset(st, 0, sizeof(*st));
}

void TIM2_IRQHandler(void)
{
    tos_knl_irq_enter();
    TIM2_SR = 0U;
    stats_add(&g_flow, flow_sensor_read());
    tos_knl_irq_leave();
}

static void uplink_entry(void *arg)
{
    (void)arg;
    struct flow_stats s;
    for (;;) {
        tos_task_delay(15U * 60U * 1000U);
        TOS_CPU_CPSR_ALLOC();
        TOS_CPU_INT_DISABLE();
        stats_take(&g_flow, &s);
        TOS_CPU_INT_ENABLE();
        nbiot_send(&s, sizeof(s));
    }
}

int main(void)
{
    board_init();
    tos_knl_init();
    NVIC_SetPriority(TIM2_IRQn, 5U);
    NVIC_EnableIRQ(TIM2_IRQn);
    (void)tos_task_create(&s_uplink_task, "uplink", uplink_entry, NULL, 4, s_uplink_stack,
                          sizeof(s_uplink_stack), 0);
    tos_knl_start();
    return 0;
}
