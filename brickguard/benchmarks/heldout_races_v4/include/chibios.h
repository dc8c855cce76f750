/* ChibiOS/RT 7 + HAL 8 on an STM32F407 (ch.h, hal.h, chcore.h of the ARMv7-M port), reduced to
 * what this corpus uses. CORTEX_SIMPLIFIED_PRIORITY is FALSE: chSysLock() raises BASEPRI to
 * CORTEX_BASEPRI_KERNEL (level 2 of 16), so IRQs at levels 0 and 1 ("fast interrupts") are never
 * masked by the kernel and must not call it. Virtual timer callbacks run from the SysTick ISR
 * (chSysTimerHandlerI) with the kernel lock held; driver callbacks (ADC end_cb, ...) run from the
 * driver's ISR. */
#ifndef CHIBIOS_H
#define CHIBIOS_H

typedef enum {
    SysTick_IRQn = -1,
    EXTI0_IRQn = 6,
    DMA2_Stream0_IRQn = 56,
    TIM2_IRQn = 28,
    TIM5_IRQn = 50,
    USART2_IRQn = 38,
} IRQn_Type;
#define __NVIC_PRIO_BITS 4U
#define __CORTEX_M 4U
#include "cm_core.h"

/* chcore.h (ARMv7-M) */
#define CORTEX_PRIORITY_LEVELS (1U << __NVIC_PRIO_BITS)
#define CORTEX_MAXIMUM_PRIORITY 0U
#define CORTEX_PRIORITY_SVCALL (CORTEX_MAXIMUM_PRIORITY + 1U)
#define CORTEX_MAX_KERNEL_PRIORITY (CORTEX_PRIORITY_SVCALL + 1U)
#define CORTEX_PRIO_MASK(n) ((n) << (8U - (unsigned)__NVIC_PRIO_BITS))
#define CORTEX_BASEPRI_DISABLED 0U
#define CORTEX_BASEPRI_KERNEL CORTEX_PRIO_MASK(CORTEX_MAX_KERNEL_PRIORITY)

typedef uint32_t syssts_t;
typedef uint32_t sysinterval_t;
typedef uint32_t systime_t;
typedef int32_t msg_t;
typedef uint32_t tprio_t;
typedef uint32_t eventmask_t;
#define MSG_OK (msg_t)0
#define TIME_INFINITE ((sysinterval_t)-1)
#define TIME_MS2I(msecs) ((sysinterval_t)(msecs))
#define NORMALPRIO 128U

static inline void port_lock(void) { __set_BASEPRI(CORTEX_BASEPRI_KERNEL); }
static inline void port_unlock(void) { __set_BASEPRI(CORTEX_BASEPRI_DISABLED); }
static inline void port_lock_from_isr(void) { port_lock(); }
static inline void port_unlock_from_isr(void) { port_unlock(); }

static inline void chSysLock(void) { port_lock(); }
static inline void chSysUnlock(void) { port_unlock(); }
static inline void chSysLockFromISR(void) { port_lock_from_isr(); }
static inline void chSysUnlockFromISR(void) { port_unlock_from_isr(); }
static inline syssts_t chSysGetStatusAndLockX(void)
{
    syssts_t sts = __get_BASEPRI();
    if (sts == CORTEX_BASEPRI_DISABLED) {
        port_lock();
    }
    return sts;
}
static inline void chSysRestoreStatusX(syssts_t sts)
{
    if (sts == CORTEX_BASEPRI_DISABLED) {
        port_unlock();
    }
}

/* IRQ handlers: OSAL_IRQ_HANDLER(id) / CH_IRQ_HANDLER(id) name a vector of vectors.c. */
#define CH_IRQ_HANDLER(id) void id(void)
#define OSAL_IRQ_HANDLER(id) CH_IRQ_HANDLER(id)
/* A fast interrupt (level 0 or 1): above the kernel, no prologue, no kernel calls. */
#define CH_FAST_IRQ_HANDLER(id) void id(void)
void __port_irq_epilogue(void);
#define CH_IRQ_PROLOGUE() do { } while (0)
#define CH_IRQ_EPILOGUE() __port_irq_epilogue()
#define OSAL_IRQ_PROLOGUE() CH_IRQ_PROLOGUE()
#define OSAL_IRQ_EPILOGUE() CH_IRQ_EPILOGUE()
#define STM32_TIM2_HANDLER VectorB0
#define STM32_TIM2_NUMBER 28
#define STM32_TIM5_HANDLER Vector108
#define STM32_TIM5_NUMBER 50
#define STM32_EXTI0_HANDLER Vector58
#define STM32_EXTI0_NUMBER 6
CH_IRQ_HANDLER(VectorB0);
CH_IRQ_HANDLER(Vector108);
CH_IRQ_HANDLER(Vector58);

/* nvic.c: the priority is the unshifted level. */
void nvicEnableVector(uint32_t n, uint32_t prio);
void nvicDisableVector(uint32_t n);

/* Threads. */
typedef struct ch_thread thread_t;
typedef void (*tfunc_t)(void *p);
#define THD_WORKING_AREA(s, n) uint64_t s[((n) + 256U) / sizeof(uint64_t)]
#define THD_FUNCTION(tname, arg) void tname(void *arg)
thread_t *chThdCreateStatic(void *wsp, size_t size, tprio_t prio, tfunc_t pf, void *arg);
void chThdSleepMilliseconds(uint32_t msec);
void chSysInit(void);
void halInit(void);

/* Semaphores and events: the I-class variants are called with the lock held. */
typedef struct { volatile int32_t cnt; } semaphore_t;
typedef struct { semaphore_t sem; } binary_semaphore_t;
void chBSemObjectInit(binary_semaphore_t *bsp, bool taken);
msg_t chBSemWait(binary_semaphore_t *bsp);
void chBSemSignalI(binary_semaphore_t *bsp);

/* Virtual timers (chvt.h): the callback runs in the SysTick ISR, lock held. */
typedef struct ch_virtual_timer virtual_timer_t;
typedef void (*vtfunc_t)(virtual_timer_t *vtp, void *p);
struct ch_virtual_timer {
    virtual_timer_t *next;
    virtual_timer_t *prev;
    sysinterval_t delta;
    vtfunc_t func;
    void *par;
    sysinterval_t reload;
};
void chVTObjectInit(virtual_timer_t *vtp);
void chVTSet(virtual_timer_t *vtp, sysinterval_t delay, vtfunc_t vtfunc, void *par);
void chVTSetI(virtual_timer_t *vtp, sysinterval_t delay, vtfunc_t vtfunc, void *par);
void chVTSetContinuous(virtual_timer_t *vtp, sysinterval_t delay, vtfunc_t vtfunc, void *par);

/* PAL. */
#define GPIOA ((void *)0x40020000UL)
#define palReadPad(port, pad) pal_lld_readpad(port, pad)
uint32_t pal_lld_readpad(void *port, uint32_t pad);

/* ADC driver (hal_adc.h): end_cb runs in the DMA stream ISR; in circular mode it runs at the
 * half and at the end of the buffer. */
typedef uint16_t adcsample_t;
typedef struct ADCDriver ADCDriver;
typedef void (*adccallback_t)(ADCDriver *adcp);
typedef struct {
    bool circular;
    uint16_t num_channels;
    adccallback_t end_cb;
    void *error_cb;
    uint32_t cr1, cr2, smpr1, smpr2, htr, ltr, sqr1, sqr2, sqr3;
} ADCConversionGroup;
struct ADCDriver {
    volatile uint32_t state;
    const void *config;
    adcsample_t *samples;
    size_t depth;
    const ADCConversionGroup *grpp;
};
extern ADCDriver ADCD1;
void adcStart(ADCDriver *adcp, const void *config);
void adcStartConversion(ADCDriver *adcp, const ADCConversionGroup *grpp, adcsample_t *samples,
                        size_t depth);
void adcStopConversion(ADCDriver *adcp);
#define ADC_COMPLETE 4U
#define adcIsBufferComplete(adcp) ((bool)((adcp)->state == ADC_COMPLETE))

/* Timer registers used by the raw handlers. */
typedef struct {
    __IO uint32_t CR1, CR2, SMCR, DIER, SR, EGR, CCMR1, CCMR2, CCER, CNT, PSC, ARR;
} TIM_TypeDef;
#define TIM2 ((TIM_TypeDef *)0x40000000UL)
#define TIM5 ((TIM_TypeDef *)0x40000C00UL)
#define STM32_TIM_SR_UIF 1U
typedef struct { __IO uint32_t IMR, EMR, RTSR, FTSR, SWIER, PR; } EXTI_TypeDef;
#define EXTI ((EXTI_TypeDef *)0x40013C00UL)

void pwm_set_duty(uint32_t permille);
void motor_apply(int32_t speed);
int32_t encoder_error_steps(void);
uint32_t power_sensor_mw(void);
void log_value(uint32_t v);
#endif
