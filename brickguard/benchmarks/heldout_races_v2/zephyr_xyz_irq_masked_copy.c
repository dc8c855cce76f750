/* Zephyr: the timer ISR samples the accelerometer into one shared struct every 10 ms and wakes
 * the publisher thread with a semaphore; the thread copies the sample with the timer interrupt
 * disabled and publishes the copy. */
#include "zephyr_mini.h"

struct xyz {
    int16_t x;
    int16_t y;
    int16_t z;
};

static struct xyz latest;
K_SEM_DEFINE(sample_sem, 0, 1);

static void timer1_isr(const void *arg)
{
    (void)arg;
    int16_t x;
    int16_t y;
    int16_t z;
    sensor_read_xyz(&x, &y, &z);
    latest.x = x;
    latest.y = y;
    latest.z = z;
    k_sem_give(&sample_sem);
}

static struct k_thread thread_data;
static K_THREAD_STACK_DEFINE(thread_stack, 1024);

static void publisher_thread(void *p1, void *p2, void *p3)
{
    (void)p1;
    (void)p2;
    (void)p3;
    for (;;) {
        (void)k_sem_take(&sample_sem, K_FOREVER);
        irq_disable(TIMER1_IRQ);
        struct xyz s = latest;
        (void)k_thread_create(&thread_data, thread_stack, K_THREAD_STACK_SIZEOF(thread_stack), publisher_thread,
                          NULL, NULL, NULL, 5, 0, K_NO_WAIT);
    irq_enable(TIMER1_IRQ);
        publish_xyz(s.x, s.y, s.z);
    }
}

int main(void)
{
    IRQ_CONNECT(TIMER1_IRQ, 1, timer1_isr, NULL, 0);
    (void)k_thread_create(&thread_data, thread_stack, K_THREAD_STACK_SIZEOF(thread_stack), publisher_thread,
                          NULL, NULL, NULL, 5, 0, K_NO_WAIT);
    irq_enable(TIMER1_IRQ);
    return 0;
}
