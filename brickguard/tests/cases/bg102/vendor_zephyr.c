/* Zephyr: irq_lock()/irq_unlock(key) and k_spin_lock/k_spin_unlock are critical sections;
   k_sched_lock() only stops other threads (ISRs still run); the callback given to
   uart_irq_callback_set runs in the UART's ISR. */
#include "cmsis_stub.h"

struct device;
typedef void (*uart_irq_callback_t)(const struct device *dev);
int uart_irq_callback_set(const struct device *dev, uart_irq_callback_t cb);
unsigned int irq_lock(void);
void irq_unlock(unsigned int key);
void k_sched_lock(void);
void k_sched_unlock(void);
struct k_spinlock { int locked; };
typedef struct { unsigned int key; } k_spinlock_key_t;
k_spinlock_key_t k_spin_lock(struct k_spinlock *l);
void k_spin_unlock(struct k_spinlock *l, k_spinlock_key_t key);
void k_thread_main(void);

volatile uint32_t rx_chars;
static struct k_spinlock lock;
extern const struct device *uart_dev;

static void uart_cb(const struct device *dev)
{
    (void)dev;
    rx_chars++;
}

int main(void)
{
    uart_irq_callback_set(uart_dev, uart_cb);
    k_sched_lock();
    rx_chars--;                      /* expect: BG102 */
    k_sched_unlock();
    unsigned int key = irq_lock();
    rx_chars--;                      /* interrupts locked */
    irq_unlock(key);
    k_spinlock_key_t k = k_spin_lock(&lock);
    rx_chars--;                      /* the spinlock locks interrupts too */
    k_spin_unlock(&lock, k);
    return 0;
}

/* IRQ_CONNECT as Zephyr defines it (sw_isr_table.h Z_ISR_DECLARE): an _isr_list entry in
   section .intList, from which the build makes the ISR table. */
struct _isr_list { int32_t irq; int32_t flags; void *func; const void *param; };
void z_arm_irq_priority_set(unsigned int irq, unsigned int prio, uint32_t flags);
#define IRQ_CONNECT(irq_p, priority_p, isr_p, isr_param_p, flags_p) { \
    static struct _isr_list __attribute__((section(".intList"), used)) _isr_entry = \
        {irq_p, flags_p, (void *)&isr_p, (const void *)isr_param_p}; \
    z_arm_irq_priority_set(irq_p, priority_p, flags_p); }

volatile uint32_t adc_done;

static void adc_handler(const void *arg)
{
    (void)arg;
    adc_done++;
}

void adc_start(void)
{
    IRQ_CONNECT(18, 2, adc_handler, NULL, 0);
    adc_done--;                      /* expect: BG102 */
}
