/* Eclipse ThreadX / Azure RTOS (Cortex-M4 GNU port), trimmed: tx_api.h declarations and
 * tx_port.h's interrupt posture values. tx_interrupt_control(TX_INT_DISABLE) sets PRIMASK and
 * returns the previous posture; tx_interrupt_control(previous) restores it. A ThreadX mutex or
 * semaphore orders threads only: it does not mask interrupts. */
#ifndef TX_API_H
#define TX_API_H

#include <stdint.h>

typedef unsigned int UINT;
typedef unsigned long ULONG;
typedef char CHAR;
typedef void VOID;

#define TX_INT_DISABLE 1
#define TX_INT_ENABLE 0
#define TX_WAIT_FOREVER ((ULONG)0xFFFFFFFFUL)
#define TX_NO_WAIT ((ULONG)0)
#define TX_SUCCESS ((UINT)0x00)
#define TX_NO_INHERIT ((UINT)0)
#define TX_INHERIT ((UINT)1)
#define TX_AUTO_START ((UINT)1)
#define TX_NO_TIME_SLICE ((ULONG)0)
#define TX_OR ((UINT)0)
#define TX_OR_CLEAR ((UINT)1)

typedef struct TX_THREAD_STRUCT { ULONG tx_thread_id; void *tx_thread_stack_ptr; } TX_THREAD;
typedef struct TX_MUTEX_STRUCT { ULONG tx_mutex_id; ULONG tx_mutex_ownership_count; } TX_MUTEX;
typedef struct TX_SEMAPHORE_STRUCT { ULONG tx_semaphore_id; ULONG tx_semaphore_count; } TX_SEMAPHORE;
typedef struct TX_EVENT_FLAGS_GROUP_STRUCT { ULONG tx_event_flags_group_id; ULONG tx_event_flags_group_current; } TX_EVENT_FLAGS_GROUP;

UINT tx_interrupt_control(UINT new_posture);
VOID tx_kernel_enter(VOID);
VOID tx_application_define(VOID *first_unused_memory);
UINT tx_thread_create(TX_THREAD *thread_ptr, CHAR *name_ptr, VOID (*entry_function)(ULONG entry_input),
                      ULONG entry_input, VOID *stack_start, ULONG stack_size, UINT priority,
                      UINT preempt_threshold, ULONG time_slice, UINT auto_start);
UINT tx_thread_sleep(ULONG timer_ticks);
UINT tx_mutex_create(TX_MUTEX *mutex_ptr, CHAR *name_ptr, UINT inherit);
UINT tx_mutex_get(TX_MUTEX *mutex_ptr, ULONG wait_option);
UINT tx_mutex_put(TX_MUTEX *mutex_ptr);
UINT tx_semaphore_create(TX_SEMAPHORE *semaphore_ptr, CHAR *name_ptr, ULONG initial_count);
UINT tx_semaphore_get(TX_SEMAPHORE *semaphore_ptr, ULONG wait_option);
UINT tx_semaphore_put(TX_SEMAPHORE *semaphore_ptr);
UINT tx_event_flags_create(TX_EVENT_FLAGS_GROUP *group_ptr, CHAR *name_ptr);
UINT tx_event_flags_set(TX_EVENT_FLAGS_GROUP *group_ptr, ULONG flags_to_set, UINT set_option);
UINT tx_event_flags_get(TX_EVENT_FLAGS_GROUP *group_ptr, ULONG requested_flags, UINT get_option,
                        ULONG *actual_flags_ptr, ULONG wait_option);

#endif
