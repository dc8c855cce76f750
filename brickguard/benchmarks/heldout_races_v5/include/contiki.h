/* Contiki-NG on a TI CC2538 (Cortex-M3, 3 priority bits), the parts of sys/pt.h, sys/lc-switch.h,
 * sys/process.h, sys/etimer.h, sys/ctimer.h, sys/rtimer.h, sys/int-master.h and the cc2538 UART
 * driver this corpus uses, and the platform main loop of os/contiki-main.c, reduced.
 * - Inline, as in Contiki-NG: the protothread and process macros (switch-based local
 *   continuations). Processes are cooperative: one runs at a time from process_run() in main, and
 *   one is never interrupted by another, only by interrupts.
 * - Body-less, as in the OS sources: process_start/process_run/process_post/process_poll,
 *   etimer_*, ctimer_set (the callback runs later from the ctimer process: process context),
 *   rtimer_set (the callback runs in the RTIMER interrupt: interrupt context), int_master_*
 *   (PRIMASK), uart_set_input (the input callback runs in the UART interrupt). */
#ifndef CONTIKI_H
#define CONTIKI_H
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

typedef unsigned short lc_t;
#define LC_INIT(s) s = 0;
#define LC_RESUME(s) switch (s) { case 0:
#define LC_SET(s) s = __LINE__; case __LINE__:
#define LC_END(s) }
struct pt {
    lc_t lc;
};
#define PT_WAITING 0
#define PT_YIELDED 1
#define PT_EXITED 2
#define PT_ENDED 3
#define PT_INIT(pt) LC_INIT((pt)->lc)
#define PT_THREAD(name_args) char name_args
#define PT_BEGIN(pt) { char PT_YIELD_FLAG = 1; if (PT_YIELD_FLAG) {;} LC_RESUME((pt)->lc)
#define PT_END(pt) LC_END((pt)->lc); PT_YIELD_FLAG = 0; PT_INIT(pt); return PT_ENDED; }
#define PT_YIELD(pt) do { PT_YIELD_FLAG = 0; LC_SET((pt)->lc); if (PT_YIELD_FLAG == 0) { return PT_YIELDED; } } while (0)
#define PT_YIELD_UNTIL(pt, cond) do { PT_YIELD_FLAG = 0; LC_SET((pt)->lc); if ((PT_YIELD_FLAG == 0) || !(cond)) { return PT_YIELDED; } } while (0)

typedef unsigned char process_event_t;
typedef void *process_data_t;
struct process {
    struct process *next;
    const char *name;
    PT_THREAD((*thread)(struct pt *, process_event_t, process_data_t));
    struct pt pt;
    unsigned char state, needspoll;
};
#define PROCESS_THREAD(name, ev, data) \
    static PT_THREAD(process_thread_##name(struct pt *process_pt, process_event_t ev, process_data_t data))
#define PROCESS(name, strname) \
    PROCESS_THREAD(name, ev, data); \
    struct process name = {NULL, strname, process_thread_##name, {0}, 0, 0}
#define PROCESS_BEGIN() PT_BEGIN(process_pt)
#define PROCESS_END() PT_END(process_pt)
#define PROCESS_WAIT_EVENT() PT_YIELD(process_pt)
#define PROCESS_WAIT_EVENT_UNTIL(c) PT_YIELD_UNTIL(process_pt, c)
#define PROCESS_EVENT_POLL 0x82
#define PROCESS_EVENT_TIMER 0x88
void process_start(struct process *p, process_data_t data);
int process_run(void);
int process_post(struct process *p, process_event_t ev, process_data_t data);
void process_poll(struct process *p);
process_event_t process_alloc_event(void);

typedef uint32_t clock_time_t;
#define CLOCK_SECOND 128U
struct timer {
    clock_time_t start, interval;
};
struct etimer {
    struct timer timer;
    struct etimer *next;
    struct process *p;
};
void etimer_set(struct etimer *et, clock_time_t interval);
void etimer_reset(struct etimer *et);
int etimer_expired(struct etimer *et);
clock_time_t clock_time(void);

struct ctimer {
    struct ctimer *next;
    struct etimer etimer;
    struct process *p;
    void (*f)(void *);
    void *ptr;
};
void ctimer_set(struct ctimer *c, clock_time_t t, void (*f)(void *), void *ptr);
void ctimer_reset(struct ctimer *c);

typedef uint32_t rtimer_clock_t;
struct rtimer;
typedef void (*rtimer_callback_t)(struct rtimer *t, void *ptr);
struct rtimer {
    rtimer_clock_t time;
    rtimer_callback_t func;
    void *ptr;
};
#define RTIMER_SECOND 32768U
int rtimer_set(struct rtimer *task, rtimer_clock_t time, rtimer_clock_t duration, rtimer_callback_t func,
               void *ptr);
rtimer_clock_t rtimer_arch_now(void);
#define RTIMER_NOW() rtimer_arch_now()

typedef uint32_t int_master_status_t;
int_master_status_t int_master_read_and_disable(void);
void int_master_status_set(int_master_status_t status);
void int_master_enable(void);

void uart_set_input(uint8_t uart, int (*input)(unsigned char c));
void uart_write_byte(uint8_t uart, uint8_t b);
void platform_init_stage_one(void);
void platform_init_stage_two(void);
int printf(const char *fmt, ...);
uint16_t adc_sensor_read(int channel);
void leds_toggle(uint8_t leds);
#endif
