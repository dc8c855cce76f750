/* A completion flag whose handler reports the end of one transfer on a channel (its test reads
   the channel: ``if (xfer_status(s_ch) == 0) done = 1;``) and that the task re-arms itself on
   every turn: a transfer that must be re-armed stops by itself at its end, so each arming brings
   one completion. Clearing the flag and only then re-arming the channel is safe (``blk_done``);
   re-arming first and clearing after loses a completion that comes between (``frm_done``: the
   new frame can end before the clear). */
#include "cmsis_stub.h"

int xfer_status(uint32_t ch);
void xfer_start(uint32_t ch, uint32_t *dst, uint32_t n);
void consume(const uint32_t *p, uint32_t n);

static uint32_t s_blk_ch, s_frm_ch;
static uint32_t s_blk[64], s_frm[64];
static volatile uint32_t blk_done, frm_done;

void DMA0_IRQHandler(void)
{
    if (xfer_status(s_blk_ch) == 0) {
        blk_done = 1u;
    }
}

void DMA1_IRQHandler(void)
{
    if (xfer_status(s_frm_ch) == 0) {
        frm_done = 1u;
    }
}

int main(void)
{
    s_blk_ch = 0u;
    s_frm_ch = 1u;
    __enable_irq();
    xfer_start(s_blk_ch, s_blk, 64u);
    xfer_start(s_frm_ch, s_frm, 64u);
    for (;;) {
        while (blk_done == 0u) {
        }
        blk_done = 0u;
        xfer_start(s_blk_ch, s_blk, 64u);
        consume(s_blk, 32u);
        while (frm_done == 0u) {
        }
        xfer_start(s_frm_ch, s_frm, 64u);
        frm_done = 0u;                   /* expect: BG101 */
        consume(s_frm, 32u);
    }
}
