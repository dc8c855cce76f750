/* Critical sections that are not balanced on every path, and ones that are. */
#include "cmsis_stub.h"

volatile uint8_t buf[16];
volatile uint8_t head, tail;

int pop_leaky(uint8_t *out)
{
    __disable_irq();
    if (head == tail) {
        return -1;                   /* expect: BG105 */
    }
    *out = buf[tail];
    tail = (uint8_t)((tail + 1u) & 15u);
    __enable_irq();
    return 0;
}

int pop_good(uint8_t *out)
{
    int rc = -1;
    __disable_irq();
    if (head != tail) {
        *out = buf[tail];
        tail = (uint8_t)((tail + 1u) & 15u);
        rc = 0;
    }
    __enable_irq();
    return rc;
}

int pop_goto(uint8_t *out)
{
    int rc = -1;
    uint32_t m = __get_PRIMASK();
    __disable_irq();
    if (head == tail) {
        goto out;
    }
    *out = buf[tail];
    rc = 0;
out:
    __set_PRIMASK(m);
    return rc;
}

void double_exit(void)
{
    __disable_irq();
    head = 0;
    __enable_irq();
    tail = 0;
    __enable_irq();                  /* expect: BG105 */
}

void rtos_leak(int n)
{
    for (int i = 0; i < n; i++) {
        taskENTER_CRITICAL();
        if (buf[i] == 0) {
            break;
        }
        taskEXIT_CRITICAL();
    }
}                                    /* expect: BG105 */

int switch_good(int k)
{
    int r = 0;
    __disable_irq();
    switch (k) {
    case 0:
        r = head;
        break;
    default:
        r = tail;
        break;
    }
    __enable_irq();
    return r;
}

/* Wrappers: they only open, or only close; their callers are judged. */
void enter_critical(void) { __disable_irq(); }
void exit_critical(void) { __enable_irq(); }

void UART4_IRQHandler(void)
{
    buf[head] = 1;
    head = (uint8_t)((head + 1u) & 15u);
}

int main(void)
{
    uint8_t v = 0;
    enter_critical();
    exit_critical();
    return pop_leaky(&v) + pop_good(&v) + pop_goto(&v) + switch_good(v);
}
