/* ThreadX on GD32F30x: the USART0 handler counts complete frames (a 0x7E flag byte ends one) and
 * wakes the protocol thread; the thread takes what it has handled off the count with interrupts
 * disabled; the diagnostics thread only prints the count. */
#include "gd32f30x.h"
#include "tx_api.h"

static TX_THREAD s_proto_thread;
static TX_THREAD s_diag_thread;
static TX_MUTEX s_count_mutex;
static TX_SEMAPHORE s_frame_sem;
static ULONG s_stacks[2][256];
static volatile ULONG g_frames_pending;

void USART0_IRQHandler(void)
{
    if (usart_interrupt_flag_get(USART0, USART_INT_FLAG_RBNE) != RESET) {
        if (usart_data_receive(USART0) == 0x7EU) {
            g_frames_pending++;
            (void)tx_semaphore_put(&s_frame_sem);
        }
    }
}

extern ULONG frames_decode(ULONG available);
extern void diag_print(ULONG pending);

static VOID proto_entry(ULONG input)
{
    (void)input;
    for (;;) {
        (void)tx_semaphore_get(&s_frame_sem, TX_WAIT_FOREVER);
        ULONG done = frames_decode(g_frames_pending);
        UINT posture = tx_interrupt_control(TX_INT_DISABLE);
        g_frames_pending -= done;
        (void)tx_interrupt_control(posture);
    }
}

static VOID diag_entry(ULONG input)
{
    (void)input;
    for (;;) {
        (void)tx_mutex_get(&s_count_mutex, TX_WAIT_FOREVER);
        diag_print(g_frames_pending);
        (void)tx_mutex_put(&s_count_mutex);
        (void)tx_thread_sleep(1000U);
    }
}

VOID tx_application_define(VOID *first_unused_memory)
{
    (void)first_unused_memory;
    (void)tx_mutex_create(&s_count_mutex, "count", TX_INHERIT);
    (void)tx_semaphore_create(&s_frame_sem, "frame", 0U);
    (void)tx_thread_create(&s_proto_thread, "proto", proto_entry, 0U, s_stacks[0], sizeof s_stacks[0],
                           4U, 4U, TX_NO_TIME_SLICE, TX_AUTO_START);
    (void)tx_thread_create(&s_diag_thread, "diag", diag_entry, 0U, s_stacks[1], sizeof s_stacks[1],
                           10U, 10U, TX_NO_TIME_SLICE, TX_AUTO_START);
    nvic_irq_enable(USART0_IRQn, 2U, 0U);
    usart_interrupt_enable(USART0, USART_INT_RBNE);
}

int main(void)
{
    tx_kernel_enter();
    return 0;
}
