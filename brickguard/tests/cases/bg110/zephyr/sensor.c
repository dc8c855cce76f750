/* Zephyr: kernel objects are interrupt-safe only with K_NO_WAIT; sleeping never is. */
#include <stdint.h>

typedef struct { int64_t ticks; } k_timeout_t;
#define K_NO_WAIT ((k_timeout_t){0})
#define K_FOREVER ((k_timeout_t){-1})
#define K_MSEC(ms) ((k_timeout_t){(ms)})
struct k_sem { int count; };
struct k_msgq { int used; };
struct k_mutex { int owner; };
int k_sem_take(struct k_sem *sem, k_timeout_t timeout);
void k_sem_give(struct k_sem *sem);
int k_msgq_put(struct k_msgq *q, const void *data, k_timeout_t timeout);
int k_mutex_lock(struct k_mutex *m, k_timeout_t timeout);
int32_t k_sleep(k_timeout_t timeout);
void irq_connect_dynamic(unsigned irq, unsigned prio, void (*isr)(const void *), const void *arg,
                         uint32_t flags);

struct k_sem data_ready;
struct k_msgq samples;
struct k_mutex bus;

static void sensor_isr(const void *arg)
{
    int32_t v = 1;
    (void)arg;
    k_sem_give(&data_ready);
    (void)k_msgq_put(&samples, &v, K_NO_WAIT);
    (void)k_msgq_put(&samples, &v, K_MSEC(10));   /* expect: BG110 */
    (void)k_sem_take(&data_ready, K_NO_WAIT);
    (void)k_sem_take(&data_ready, K_FOREVER);    /* expect: BG110 */
    (void)k_mutex_lock(&bus, K_NO_WAIT);          /* expect: BG110 */
    (void)k_sleep(K_MSEC(1));                     /* expect: BG110 */
}

int main(void)
{
    irq_connect_dynamic(12, 2, sensor_isr, 0, 0);
    (void)k_sem_take(&data_ready, K_FOREVER);
    (void)k_sleep(K_MSEC(100));
    return 0;
}
