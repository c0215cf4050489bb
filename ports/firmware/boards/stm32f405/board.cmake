# STM32F405 (Cortex-M4F) with the real chip's memory: 1 MB flash, 128 KB SRAM for everything (memory.ld).
# QEMU emulates it as the Netduino Plus 2.
set(board_cpu cortex-m4)  # AUSPEX_CORTEX_M_CPU (ports/toolchains/arm-none-eabi.cmake)
set(board_qemu_machine netduinoplus2)  # qemu-system-arm -M
# What `auspex inspect --board` prints; @CODE@ and @RAM@ are the sizes of memory.ld's CODE and RAM regions.
set(board_description "Cortex-M4F, @CODE@ flash, @RAM@ SRAM")
# The doctest image (~400 KB of code plus the fixtures, a 64 KB model copy and the fixtures' arena in RAM)
# does not fit 128 KB of RAM; the same Cortex-M4 code runs it on mps2-an386.
set(board_firmware_tests OFF)
set(board_test_image image_code.ld)
# Default of AUSPEX_FIRMWARE_STACK_SIZE: the example's path (startup + main + runtime, the line make stack
# prints) with room for newlib's printf and a margin.
set(board_stack_size 8192)
# The example's session must fit 128 KB with .data, .bss, newlib's heap and the stack: int8 weights stay in
# flash and int8 key/value caches bring the session arena at window 48 / horizon 24 to 81,860 B.
set(board_example_convert --dtype int8 --kv-cache int8)
