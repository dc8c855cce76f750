/* CAN-to-UART gateway on an AT32F403A (Artery firmware library). The CAN1 FIFO0 interrupt copies
 * each received frame into a 32-slot queue; main pops frames, filters them by identifier, prints
 * them on USART1 and answers a node's heartbeat request. TMR4 keeps a millisecond clock and a
 * bus-off watchdog: when no frame came for 500 ms main reports the bus silent. */
#include "at32f403a_407.h"

#define QLEN 32U
#define HEARTBEAT_REQ_ID 0x700U
#define HEARTBEAT_RSP_ID 0x701U

struct rx_queue {
    can_rx_message_type slot[QLEN];
    uint32_t head; /* next slot the ISR fills */
    uint32_t tail; /* next slot main takes */
    volatile uint32_t count;
    uint32_t overflows;
};

static struct rx_queue g_rxq;
static volatile uint32_t g_ms;
static volatile uint32_t g_last_rx_ms;
static uint32_t s_forwarded;
static uint32_t s_filtered;
static bool s_silent_reported;
static const uint32_t s_pass_ids[] = {0x100U, 0x180U, 0x200U, HEARTBEAT_REQ_ID};

static bool queue_push(struct rx_queue *q, const can_rx_message_type *m)
{
    if (q->count == QLEN) {
        q->overflows++;
        return false;
    }
    q->slot[q->head] = *m;
    q->head = (q->head + 1U) % QLEN;
    q->count++;
    return true;
}

static bool queue_pop(struct rx_queue *q, can_rx_message_type *out)
{
    if (q->count == 0U) {
        return false;
    }
    *out = q->slot[q->tail];
    q->tail = (q->tail + 1U) % QLEN;
    q->count--;
    return true;
}

void CAN1_RX0_IRQHandler(void)
{
    can_rx_message_type m;
    while (can_flag_get(CAN1, CAN_RF0MN_FLAG) != RESET) {
        can_message_receive(CAN1, CAN_RX_FIFO0, &m);
        (void)queue_push(&g_rxq, &m);
        g_last_rx_ms = g_ms;
    }
}

void TMR4_GLOBAL_IRQHandler(void)
{
    tmr_flag_clear(TMR4, TMR_OVF_FLAG);
    g_ms++;
}

static bool passes(uint32_t id)
{
    for (uint32_t i = 0U; i < sizeof(s_pass_ids) / sizeof(s_pass_ids[0]); i++) {
        if (s_pass_ids[i] == id) {
            return true;
        }
    }
    return false;
}

static void answer_heartbeat(const can_rx_message_type *req)
{
    can_tx_message_type rsp = {0};
    rsp.standard_id = HEARTBEAT_RSP_ID;
    rsp.dlc = 2U;
    rsp.data[0] = req->data[0];
    rsp.data[1] = (uint8_t)(s_forwarded & 0xFFU);
    if (can_message_transmit(CAN1, &rsp) == 0xFFU) {
        printf("heartbeat: no free mailbox\n");
    }
}

int main(void)
{
    can_rx_message_type m;
    system_clock_config();
    uart_print_init(460800U);
    nvic_priority_group_config(NVIC_PRIORITY_GROUP_4);
    nvic_irq_enable(CAN1_RX0_IRQn, 1, 0);
    nvic_irq_enable(TMR4_GLOBAL_IRQn, 0, 0);
    can_interrupt_enable(CAN1, CAN_RF0MIEN_INT, TRUE);
    tmr_interrupt_enable(TMR4, TMR_OVF_INT, TRUE);
    tmr_counter_enable(TMR4, TRUE);
    for (;;) {
        while (queue_pop(&g_rxq, &m)) {
            s_silent_reported = false;
            if (!passes(m.standard_id)) {
                s_filtered++;
                continue;
            }
            if (m.standard_id == HEARTBEAT_REQ_ID) {
                answer_heartbeat(&m);
            }
            s_forwarded++;
            printf("%03lx %u %02x%02x%02x%02x%02x%02x%02x%02x\n", (unsigned long)m.standard_id, m.dlc,
                   m.data[0], m.data[1], m.data[2], m.data[3], m.data[4], m.data[5], m.data[6], m.data[7]);
        }
        if (!s_silent_reported && g_ms - g_last_rx_ms > 500U) {
            s_silent_reported = true;
            printf("bus silent; %lu forwarded, %lu filtered, %lu overflows\n", (unsigned long)s_forwarded,
                   (unsigned long)s_filtered, (unsigned long)g_rxq.overflows);
        }
    }
}
