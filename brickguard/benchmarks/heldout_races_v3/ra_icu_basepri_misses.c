/* Edge counter on external IRQ5 (FSP r_icu, RA6M4). The BSP masks interrupts for critical sections
 * with BASEPRI at level 4 (bsp_cfg.h), so that the motor PWM interrupts at levels 0-3 keep running. */
#define BSP_CFG_IRQ_MASK_LEVEL_FOR_CRITICAL_SECTION (4U)
#include "ra_fsp.h"

static icu_instance_ctrl_t g_irq5_ctrl;
static volatile uint32_t g_edges;
static uint32_t s_edges_total;

static void irq5_cb(external_irq_callback_args_t *p_args)
{
    FSP_PARAMETER_NOT_USED(p_args);
    g_edges++;
}

static const external_irq_cfg_t g_irq5_cfg = {
    .channel = 5U, .ipl = 2U, .irq = ICU_IRQ5_IRQn, .p_callback = irq5_cb, .p_context = NULL,
};

extern void log_rate(uint32_t per_second, uint32_t total);

int main(void)
{
    (void)R_ICU_ExternalIrqOpen(&g_irq5_ctrl, &g_irq5_cfg);
    (void)R_ICU_ExternalIrqEnable(&g_irq5_ctrl);
    for (;;) {
        R_BSP_SoftwareDelay(1000U, BSP_DELAY_UNITS_MILLISECONDS);
        uint32_t edges;
        FSP_CRITICAL_SECTION_DEFINE;
        FSP_CRITICAL_SECTION_ENTER;
        edges = g_edges;
        g_edges = 0U;
        FSP_CRITICAL_SECTION_EXIT;
        s_edges_total += edges;
        log_rate(edges, s_edges_total);
    }
}
