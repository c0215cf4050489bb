/* Startup for the Cortex-M boards (Armv7-M, Armv7E-M and Armv8.1-M): the vector table and the reset
 * handler. Reset enables the FPU (and Helium, which shares its enable bits) before any C code runs, when
 * the image is built for one (a Cortex-M3 has none and its CPACR bits stay untouched), copies .data from
 * its load address, zeroes .bss, fills the stack below itself with a pattern, runs the static
 * constructors, opens the semihosting console and calls main. When main returns, the stack's high-water
 * mark goes to stderr ("auspex: stack ..."); a stack that reached the bottom of its region (STACK_SIZE of
 * the linker script) fails the run; otherwise main's return value leaves through semihosting as the
 * emulator's exit status. A fault prints its name through semihosting and exits with status 1, so a
 * crashed test fails at once. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

extern uint32_t __stack_top__, __stack_limit__;
extern uint32_t __data_load__, __data_start__, __data_end__;
extern uint32_t __bss_start__, __bss_end__;
typedef void (*init_fn)(void);
extern init_fn __preinit_array_start[], __preinit_array_end[];
extern init_fn __init_array_start[], __init_array_end[];

int main(void);
void initialise_monitor_handles(void); /* newlib's librdimon: stdin/stdout/stderr over semihosting */

/* The legacy .init/.fini hooks that newlib's __libc_init_array/__libc_fini_array call (normally in the
 * crti/crtn start files, which these images do not link): the arrays do the work. */
void _init(void) {}
void _fini(void) {}
/* Identifies this image to __cxa_atexit (static destructors); normally defined by crtbegin.o. */
void* __dso_handle = &__dso_handle;

void Reset_Handler(void);
void auspex_cortex_m_start(void) __attribute__((noreturn, used));

/* CPACR: full access to coprocessors 10 and 11 (FPU, MVE) before anything may touch them; the compiler
 * is free to use floating-point registers anywhere in C code, so this part is assembly. A soft-float
 * build (Cortex-M3) has no FPU to enable. */
__attribute__((naked)) void Reset_Handler(void) {
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
    __asm volatile(
        "ldr r0, =0xE000ED88\n"
        "ldr r1, [r0]\n"
        "orr r1, r1, #(0xF << 20)\n"
        "str r1, [r0]\n"
        "dsb\n"
        "isb\n"
        "b auspex_cortex_m_start\n");
#else
    __asm volatile("b auspex_cortex_m_start\n");
#endif
}

#define STACK_PAINT 0xA5C3E11Du

/* Fills the stack region from its limit up to a little below this function's frame. */
__attribute__((noinline)) static void paint_stack(void) {
    uint32_t* sp;
    __asm volatile("mov %0, sp" : "=r"(sp));
    uint32_t* const top = sp - 64;
    for (uint32_t* p = &__stack_limit__; p < top; ++p) *p = STACK_PAINT;
}

/* Bytes of the stack region ever written: from its top down to the lowest word that lost the pattern. */
static uint32_t stack_used(void) {
    const uint32_t* p = &__stack_limit__;
    while (p < &__stack_top__ && *p == STACK_PAINT) ++p;
    return (uint32_t)((const char*)&__stack_top__ - (const char*)p);
}

void auspex_cortex_m_start(void) {
    const uint32_t* from = &__data_load__;
    for (uint32_t* to = &__data_start__; to < &__data_end__;) *to++ = *from++;
    for (uint32_t* p = &__bss_start__; p < &__bss_end__;) *p++ = 0;
    paint_stack();
    for (init_fn* f = __preinit_array_start; f < __preinit_array_end; ++f) (*f)();
    for (init_fn* f = __init_array_start; f < __init_array_end; ++f) (*f)();
    initialise_monitor_handles();
    const int status = main();
    const uint32_t used = stack_used();
    const uint32_t size = (uint32_t)((const char*)&__stack_top__ - (const char*)&__stack_limit__);
    fprintf(stderr, "auspex: stack %lu bytes used of %lu\n", (unsigned long)used, (unsigned long)size);
    if (used >= size) {
        fprintf(stderr, "auspex: stack overflow: the stack reached the end of its %lu bytes (STACK_SIZE)\n",
                (unsigned long)size);
        exit(1);
    }
    exit(status);
}

/* Semihosting without newlib: SYS_WRITE0 prints a string, SYS_EXIT with a run-time-error reason makes
 * qemu exit with status 1. */
static void semihost(uint32_t op, const void* arg) {
    register uint32_t r0 __asm("r0") = op;
    register const void* r1 __asm("r1") = arg;
    __asm volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
}

static void fault(const char* what) {
    semihost(0x04, what);
    semihost(0x18, (const void*)0x20023u); /* ADP_Stopped_RunTimeErrorUnknown */
    for (;;) {
    }
}

static void nmi_handler(void) { fault("auspex: NMI\n"); }
static void hardfault_handler(void) { fault("auspex: HardFault\n"); }
static void memmanage_handler(void) { fault("auspex: MemManage fault\n"); }
static void busfault_handler(void) { fault("auspex: BusFault\n"); }
static void usagefault_handler(void) { fault("auspex: UsageFault\n"); }
static void securefault_handler(void) { fault("auspex: SecureFault\n"); }
static void unexpected_handler(void) { fault("auspex: unexpected exception\n"); }

/* The 16 system entries; no interrupt is ever enabled, so no external vectors are needed. */
struct vector_table {
    uint32_t* initial_sp;
    void (*handlers[15])(void);
};

__attribute__((section(".vectors"), used)) static const struct vector_table vectors = {
    &__stack_top__,
    {
        Reset_Handler, nmi_handler, hardfault_handler, memmanage_handler, busfault_handler, usagefault_handler,
        securefault_handler, /* Armv8-M; reserved on Armv7-M */
        unexpected_handler, unexpected_handler, unexpected_handler, unexpected_handler, /* SVCall */
        unexpected_handler,                                                             /* DebugMonitor */
        unexpected_handler, unexpected_handler,                                         /* PendSV */
        unexpected_handler,                                                             /* SysTick */
    },
};
