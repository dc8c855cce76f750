/* Reflow oven on an LPC1768 under uC/OS-II. PWM1 drives the heater's solid-state relay; its
 * period-match ISR (every 10 ms) latches the duty the control task computed into MR1 and applies
 * the hardware over-temperature cut-off. The control task runs a PI loop every 100 ms on the
 * thermocouple temperature the ADC ISR converts; the UI task takes setpoints from UART0.
 * The heater element is rated for 70 % duty at most (DUTY_MAX); MR1 > DUTY_MAX overheats it. */
#include "ucos_ii.h"

#define PWM_PERIOD 10000U               /* MR0, 1 us ticks */
#define DUTY_MAX 7000U
#define KP 40
#define KI 2
#define TEMP_CUTOFF_DC 2600

static OS_STK s_ctrl_stk[384];
static OS_STK s_ui_stk[256];
static volatile uint32_t g_duty;        /* MR1 value for the next period */
static volatile int32_t s_temp_dC;      /* deci-degrees, from the ADC ISR */
static volatile int32_t s_setpoint_dC;
static volatile uint32_t s_cutoffs;
static int32_t s_integral;
static char s_cmd[16];

static void App_PWM1_ISR(void)
{
    OSIntEnter();
    LPC_PWM1->IR = 0x01U;
    if (s_temp_dC >= TEMP_CUTOFF_DC) {
        LPC_PWM1->MR1 = 0U;
        s_cutoffs++;
    } else {
        LPC_PWM1->MR1 = g_duty;
    }
    LPC_PWM1->LER = 0x02U;
    OSIntExit();
}

static void App_ADC_ISR(void)
{
    uint32_t raw;
    OSIntEnter();
    raw = (LPC_ADC->ADGDR >> 4) & 0xFFFU;
    s_temp_dC = (int32_t)((raw * 3300U) / 1241U);
    OSIntExit();
}

static void AppTaskCtrl(void *p_arg)
{
    (void)p_arg;
    for (;;) {
        int32_t err = s_setpoint_dC - s_temp_dC;
        int32_t out;
        s_integral += err;
        if (s_integral > 20000) {
            s_integral = 20000;
        } else if (s_integral < -20000) {
            s_integral = -20000;
        }
        out = (KP * err) + (KI * s_integral);
        if (out < 0) {
            out = 0;
        } else if (out > (int32_t)DUTY_MAX) {
            out = (int32_t)DUTY_MAX;
        }
        g_duty = (uint32_t)out;
        LPC_ADC->ADCR |= 1UL << 24;     /* start the next conversion */
        OSTimeDly(100U);
    }
}

static int32_t parse_dC(const char *s)
{
    int32_t v = 0;
    while ((*s >= '0') && (*s <= '9')) {
        v = (v * 10) + (*s - '0');
        s++;
    }
    return v * 10;
}

static void AppTaskUI(void *p_arg)
{
    uint32_t n = 0U;
    (void)p_arg;
    for (;;) {
        while ((LPC_UART0->LSR & 0x01U) != 0U) {
            char c = (char)LPC_UART0->RBR_THR;
            if ((c == '\r') || (n == sizeof s_cmd - 1U)) {
                s_cmd[n] = '\0';
                if ((s_cmd[0] == 'S') && (parse_dC(&s_cmd[1]) <= 2500)) {
                    s_setpoint_dC = parse_dC(&s_cmd[1]);
                }
                n = 0U;
            } else {
                s_cmd[n++] = c;
            }
        }
        APP_TRACE("T %ld SP %ld duty %lu cut %lu\n", (long)s_temp_dC, (long)s_setpoint_dC,
                  (unsigned long)g_duty, (unsigned long)s_cutoffs);
        OSTimeDly(50U);
    }
}

int main(void)
{
    BSP_Init();
    OSInit();
    LPC_PWM1->MR0 = PWM_PERIOD;
    LPC_PWM1->MR1 = 0U;
    LPC_PWM1->MCR = 0x03U;              /* interrupt and reset on MR0 */
    LPC_PWM1->PCR = 1UL << 9;
    LPC_PWM1->LER = 0x03U;
    LPC_PWM1->TCR = 0x09U;
    BSP_IntVectSet(BSP_INT_ID_ADC, App_ADC_ISR);
    BSP_IntVectSet(BSP_INT_ID_PWM1, App_PWM1_ISR);
    BSP_IntPrioSet(BSP_INT_ID_PWM1, 2U);
    BSP_IntPrioSet(BSP_INT_ID_ADC, 6U);
    BSP_IntEn(BSP_INT_ID_ADC);
    BSP_IntEn(BSP_INT_ID_PWM1);
    (void)OSTaskCreate(AppTaskCtrl, NULL, &s_ctrl_stk[383], 5U);
    (void)OSTaskCreate(AppTaskUI, NULL, &s_ui_stk[255], 9U);
    OSStart();
    return 0;
}
