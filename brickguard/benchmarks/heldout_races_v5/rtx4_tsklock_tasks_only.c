/* Display pages on an STM32F103 with Keil RTX4: a keypad task (priority 3) moves between pages
 * and a refresh task (priority 2) draws the current page with its scroll offset; the pair is
 * changed and read under tsk_lock()/tsk_unlock(), which is enough: only these two tasks touch it,
 * and tsk_lock stops task switching. No interrupt handler reads or writes the page. */
#include "RTL.h"

struct page_state {
    U8 page;
    U8 scroll;
};

static struct page_state g_view;
static volatile U32 g_key_events;

void EXTI0_IRQHandler(void)
{
    EXTI_PR = 1U;
    g_key_events++;
}

__task void keypad_task(void)
{
    U32 seen = 0U;
    for (;;) {
        os_dly_wait(20U);
        if (g_key_events == seen) {
            continue;
        }
        seen = g_key_events;
        tsk_lock();
        g_view.page = (U8)((g_view.page + 1U) % 4U);
        g_view.scroll = 0U;
        tsk_unlock();
    }
}

__task void refresh_task(void)
{
    for (;;) {
        os_dly_wait(100U);
        tsk_lock();
        struct page_state v = g_view;
        if (v.scroll < 8U) {
            g_view.scroll = (U8)(v.scroll + 1U);
        }
        tsk_unlock();
        lcd_print(0, "page %u line %u", v.page, v.scroll);
    }
}

__task void init_task(void)
{
    (void)os_tsk_create(keypad_task, 3);
    (void)os_tsk_create(refresh_task, 2);
    NVIC_EnableIRQ(EXTI0_IRQn);
    os_tsk_delete_self();
}

int main(void)
{
    board_init();
    os_sys_init(init_task);
    for (;;) {
    }
}
