/* CMSIS-RTOS2 (RTX5) on STM32G4 (LL drivers): the TIM7 handler stores the latest three-axis IMU
 * sample read from the sensor's data registers; the fusion thread copies it with the kernel
 * locked. */
#include "stm32g4_ll.h"
#include "cmsis_os2.h"

struct imu_sample {
    int32_t ax;
    int32_t ay;
    int32_t az;
};

static struct imu_sample g_imu;
static uint32_t s_isr_reads;

extern void imu_read_regs(int32_t out[3]);
extern void fusion_step(const struct imu_sample *s);

void TIM7_IRQHandler(void)
{
    int32_t raw[3];
    LL_TIM_ClearFlag_UPDATE(TIM7);
    imu_read_regs(raw);
    g_imu.ax = raw[0];
    g_imu.ay = raw[1];
    g_imu.az = raw[2];
    s_isr_reads++;
}

static void fusion_thread(void *argument)
{
    (void)argument;
    for (;;) {
        struct imu_sample s;
        (void)osKernelLock();
        s = g_imu;
        (void)osKernelUnlock();
        fusion_step(&s);
        (void)osDelay(5U);
    }
}

int main(void)
{
    SystemClock_Config();
    (void)osKernelInitialize();
    (void)osThreadNew(fusion_thread, NULL, NULL);
    NVIC_SetPriority(TIM7_IRQn, 5U);
    LL_TIM_EnableIT_UPDATE(TIM7);
    LL_TIM_EnableCounter(TIM7);
    NVIC_EnableIRQ(TIM7_IRQn);
    (void)osKernelStart();
    for (;;) {
    }
}
