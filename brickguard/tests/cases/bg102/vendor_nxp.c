/* NXP MCUXpresso SDK: DisableGlobalIRQ()/EnableGlobalIRQ(primask) is a critical section,
   DisableIRQ(IRQn) masks one line, and the callback given to LPUART_TransferCreateHandle runs
   in the LPUART's interrupt (the driver's LPUART1_IRQHandler calls it). */
#include "cmsis_stub.h"

typedef enum { LPUART1_IRQn = 20, PIT_IRQn = 122 } IRQn_Type;
typedef struct { uint32_t DATA; } LPUART_Type;
#define LPUART1 ((LPUART_Type *)0x40184000u)
typedef int32_t status_t;
typedef struct _lpuart_handle lpuart_handle_t;
typedef void (*lpuart_transfer_callback_t)(LPUART_Type *base, lpuart_handle_t *handle,
                                           status_t status, void *userData);
struct _lpuart_handle { lpuart_transfer_callback_t callback; void *userData; };
void LPUART_TransferCreateHandle(LPUART_Type *base, lpuart_handle_t *handle,
                                 lpuart_transfer_callback_t callback, void *userData);
uint32_t DisableGlobalIRQ(void);
void EnableGlobalIRQ(uint32_t primask);
void DisableIRQ(IRQn_Type interrupt);
void EnableIRQ(IRQn_Type interrupt);

volatile uint32_t rx_done, ticks;
static lpuart_handle_t g_handle;

static void lpuart_callback(LPUART_Type *base, lpuart_handle_t *handle, status_t status,
                            void *userData)
{
    (void)base; (void)handle; (void)status; (void)userData;
    rx_done++;
}

void PIT_IRQHandler(void)
{
    ticks++;
}

int main(void)
{
    LPUART_TransferCreateHandle(LPUART1, &g_handle, lpuart_callback, NULL);
    EnableIRQ(PIT_IRQn);
    rx_done--;                       /* expect: BG102 */
    uint32_t primask = DisableGlobalIRQ();
    rx_done--;                       /* inside DisableGlobalIRQ ... EnableGlobalIRQ */
    ticks--;
    EnableGlobalIRQ(primask);
    DisableIRQ(PIT_IRQn);
    ticks--;                         /* PIT's line is masked: its handler cannot fire */
    rx_done--;                       /* expect: BG102 */
    EnableIRQ(PIT_IRQn);
    return 0;
}
