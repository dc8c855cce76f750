/* Handlers an SDK takes in a configuration struct (Renesas FSP: `.p_callback` in the cfg passed
   to R_SCI_UART_Open), or at an argument other than the one a listed registration names
   (emlib's GPIOINT_CallbackRegister(intNo, cb) matches Harmony's `*_CallbackRegister(cb, ctx)`
   by name only), or as a hardware timer's callback (pico-sdk's add_repeating_timer_ms), run in
   the driver's interrupt. Look-alikes: a cfg passed to a function the program defines (judged
   by its body), a cfg whose function field is no callback, a UI toolkit's timer (LVGL), a table
   of command handlers (an array of entries, not one configuration). */
#include "cmsis_stub.h"

typedef struct { uint32_t event; } uart_callback_args_t;
typedef struct { uint8_t channel; void (*p_callback)(uart_callback_args_t *); } uart_cfg_t;
typedef struct { uint32_t open; } uart_ctrl_t;
int R_SCI_UART_Open(uart_ctrl_t *ctrl, const uart_cfg_t *cfg);
typedef void (*GPIOINT_IrqCallbackPtr_t)(uint8_t intNo);
void GPIOINT_CallbackRegister(uint8_t intNo, GPIOINT_IrqCallbackPtr_t callbackPtr);
typedef int (*repeating_timer_callback_t)(void *rt);
int add_repeating_timer_ms(int32_t ms, repeating_timer_callback_t callback, void *user, void *out);
void *lv_timer_create(void (*timer_xcb)(void *), uint32_t period, void *user);
typedef struct { uint32_t (*compute)(uint32_t); } math_ops_t;
int math_register(const math_ops_t *ops);
typedef struct { const char *name; void (*handler)(void); } cmd_t;
int cli_register(const cmd_t *cmds, uint32_t n);

volatile uint32_t rx_events, keys, ticks, frames, computed, local_cb, helps;
static uart_ctrl_t ctrl;

static void uart_cb(uart_callback_args_t *a) { (void)a; rx_events++; }
static void on_key(uint8_t n) { (void)n; keys++; }
static int on_tick(void *rt) { (void)rt; ticks++; return 1; }
static void on_frame(void *t) { (void)t; frames++; }
static uint32_t square(uint32_t x) { computed++; return x * x; }
static void my_cb(uart_callback_args_t *a) { (void)a; local_cb++; }
static void cmd_help(void) { helps++; }
static const cmd_t cmds[] = {{"help", cmd_help}};

static const uart_cfg_t uart_cfg = {.channel = 0u, .p_callback = uart_cb};
static const math_ops_t ops = {square};

static void my_open(const uart_cfg_t *cfg) { (void)cfg; }

int main(void)
{
    uart_cfg_t mine = {1u, my_cb};
    (void)R_SCI_UART_Open(&ctrl, &uart_cfg);
    GPIOINT_CallbackRegister(2u, on_key);
    (void)add_repeating_timer_ms(-2, on_tick, NULL, NULL);
    (void)lv_timer_create(on_frame, 30u, NULL);
    (void)math_register(&ops);
    my_open(&mine);
    (void)cli_register(cmds, 1u);
    for (;;) {
        rx_events--;                 /* expect: BG102 */
        keys--;                      /* expect: BG102 */
        ticks--;                     /* expect: BG102 */
        frames--;
        computed--;
        local_cb--;
        helps--;
    }
}
