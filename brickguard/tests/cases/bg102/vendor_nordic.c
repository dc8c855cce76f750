/* Nordic nRF5 SDK / nrfx: NRFX_CRITICAL_SECTION_ENTER()/EXIT() is a critical section (here as
   the nRF5 SDK's nrfx_glue.h defines it: a block around app_util_critical_region_enter/exit),
   and the event handler given to nrfx_uarte_init runs in the UARTE's interrupt. */
#include "cmsis_stub.h"

void app_util_critical_region_enter(uint8_t *p_nested);
void app_util_critical_region_exit(uint8_t nested);
#define CRITICAL_REGION_ENTER() { uint8_t __CR_NESTED = 0; app_util_critical_region_enter(&__CR_NESTED);
#define CRITICAL_REGION_EXIT() app_util_critical_region_exit(__CR_NESTED); }
#define NRFX_CRITICAL_SECTION_ENTER() CRITICAL_REGION_ENTER()
#define NRFX_CRITICAL_SECTION_EXIT() CRITICAL_REGION_EXIT()

typedef struct { uint8_t drv_inst_idx; } nrfx_uarte_t;
typedef struct { uint32_t baudrate; } nrfx_uarte_config_t;
typedef struct { int type; } nrfx_uarte_event_t;
typedef void (*nrfx_uarte_event_handler_t)(nrfx_uarte_event_t const *p_event, void *p_context);
int nrfx_uarte_init(nrfx_uarte_t const *p_instance, nrfx_uarte_config_t const *p_config,
                    nrfx_uarte_event_handler_t event_handler);

volatile uint32_t events;
static const nrfx_uarte_t uarte = {0};
static const nrfx_uarte_config_t cfg = {115200};

static void uarte_event(nrfx_uarte_event_t const *p_event, void *p_context)
{
    (void)p_event; (void)p_context;
    events++;
}

int main(void)
{
    nrfx_uarte_init(&uarte, &cfg, uarte_event);
    events--;                        /* expect: BG102 */
    NRFX_CRITICAL_SECTION_ENTER();
    events--;                        /* inside the nrfx critical section */
    NRFX_CRITICAL_SECTION_EXIT();
    return 0;
}
