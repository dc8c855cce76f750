/* CMSIS-RTOS2 (RTX5) on STM32G4 (LL drivers): the TIM7 handler reads a three-axis IMU sample
 * from the sensor's data registers and queues it; the fusion thread takes samples off the queue. */
#include "stm32g4_ll.h"
#include "cmsis_os2.h"

struct imu_sample {
    int32_t ax;
    int32_t ay;
    int32_t az;
};

static osMessageQueueId_t s_imu_q;
static struct imu_sample s_isr_sample;
static volatile uint32_t g_imu_overruns;

extern void imu_read_regs(int32_t out[3]);
extern void fusion_step(const struct imu_sample *s);

void TIM7_IRQHandler(void)
{
    int32_t raw[3];
    LL_TIM_ClearFlag_UPDATE(TIM7);
    imu_read_regs(raw);
    s_isr_sample.ax = raw[0];
    s_isr_sample.ay = raw[1];
    s_isr_sample.az = raw[2];
    if (osMessageQueuePut(s_imu_q, &s_isr_sample, 0U, 0U) != osOK) {
        g_imu_overruns++;
    }
}

static void fusion_thread(void *argument)
{
    (void)argument;
    for (;;) {
        struct imu_sample s;
        if (osMessageQueueGet(s_imu_q, &s, NULL, osWaitForever) == osOK) {
            fusion_step(&s);
        }
    }
}

int main(void)
{
    SystemClock_Config();
    (void)osKernelInitialize();
    s_imu_q = osMessageQueueNew(4U, sizeof(struct imu_sample), NULL);
    (void)osThreadNew(fusion_thread, NULL, NULL);
    NVIC_SetPriority(TIM7_IRQn, 5U);
    LL_TIM_EnableIT_UPDATE(TIM7);
    LL_TIM_EnableCounter(TIM7);
    NVIC_EnableIRQ(TIM7_IRQn);
    (void)osKernelStart();
    for (;;) {
    }
}
