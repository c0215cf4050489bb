/* newlib's heap for the firmware's own C library calls (printf's number conversion borrows a few
 * hundred bytes): bounded by the linker script's heap region, so it can never grow into the stack. The
 * auspex runtime itself never allocates (check_heap_free.sh proves it on the compiled objects). */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

extern char __heap_start__[], __heap_end__[];

void* _sbrk(ptrdiff_t increment) {
    static char* top = __heap_start__;
    if (increment < 0 ? (size_t)(top - __heap_start__) < (size_t)-increment
                      : (size_t)(__heap_end__ - top) < (size_t)increment) {
        errno = ENOMEM;
        return (void*)-1;
    }
    char* previous = top;
    top += increment;
    return previous;
}
