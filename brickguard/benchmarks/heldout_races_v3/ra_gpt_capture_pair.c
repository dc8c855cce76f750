/* Shaft speed from GPT0 input capture (FSP r_gpt, RA6M4): the driver's capture interrupt calls
 * gpt_cb; main turns the totals into a mean period every 100 ms. */
#include "ra_fsp.h"

struct period_acc {
    volatile uint32_t sum;
    volatile uint32_t n;
};

static gpt_instance_ctrl_t g_gpt0_ctrl;
static struct period_acc g_period;
static uint32_t s_last_capture;

static void gpt_cb(timer_callback_args_t *p_args)
{
    if (p_args->event == TIMER_EVENT_CAPTURE_A) {
        g_period.sum += p_args->capture - s_last_capture;
        g_period.n++;
        s_last_capture = p_args->capture;
    }
}

static const timer_cfg_t g_gpt0_cfg = {
    .mode = TIMER_MODE_PERIODIC, .period_counts = 0xFFFFFFFFU, .duty_cycle_counts = 0U,
    .channel = 0U, .cycle_end_ipl = 4U, .cycle_end_irq = GPT0_COUNTER_OVERFLOW_IRQn,
    .p_callback = gpt_cb, .p_context = NULL, .p_extend = NULL,
};

extern void speed_publish(uint32_t mean_period);

int main(void)
{
    uint32_t sum_prev = 0U;
    uint32_t n_prev = 0U;
    (void)R_GPT_Open(&g_gpt0_ctrl, &g_gpt0_cfg);
    (void)R_GPT_Start(&g_gpt0_ctrl);
    for (;;) {
        R_BSP_SoftwareDelay(100U, BSP_DELAY_UNITS_MILLISECONDS);
        uint32_t sum = g_period.sum;
        uint32_t n = g_period.n;
        if (n != n_prev) {
            speed_publish((sum - sum_prev) / (n - n_prev));
        }
        sum_prev = sum;
        n_prev = n;
    }
}
