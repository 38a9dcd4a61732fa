// The C parts of TabulaPlatform: a thread-local, which Swift has none of, and inotify,
// which the Glibc module does not include.
#ifndef TABULA_PLATFORM_SHIM_H
#define TABULA_PLATFORM_SHIM_H

#ifdef __linux__
#include <sys/inotify.h>
#endif

/// The calling thread's ThreadSlot number plus one (0: none given yet), in a C thread-local:
/// pthread_getspecific behind a lazily made key costs several times the instructions, on
/// each of the reads a request makes (Scripts/bench-instructions counts them). Static, so
/// each file that calls these has its own copy: only ThreadSlot.swift may call them.
static inline long *tabula_thread_slot_cell(void) {
    static __thread long slot_plus_one;
    return &slot_plus_one;
}

static inline long tabula_thread_slot(void) {
    return *tabula_thread_slot_cell();
}

static inline void tabula_set_thread_slot(long slot_plus_one) {
    *tabula_thread_slot_cell() = slot_plus_one;
}

#endif
