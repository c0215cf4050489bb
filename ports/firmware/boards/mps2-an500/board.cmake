# Arm MPS2 AN500: Cortex-M7 (FPv5-D16), 4 MB code memory, 4 MB RAM, 16 MB PSRAM.
set(board_cpu cortex-m7)  # AUSPEX_CORTEX_M_CPU (ports/toolchains/arm-none-eabi.cmake)
set(board_qemu_machine mps2-an500)  # qemu-system-arm -M
# What `auspex inspect --board` prints; @CODE@ and @RAM@ are the sizes of memory.ld's CODE and RAM regions.
set(board_description "Cortex-M7, @CODE@ code memory, @RAM@ RAM")
set(board_firmware_tests ON)  # default of AUSPEX_FIRMWARE_TESTS: build and run the doctest image
set(board_test_image image_bigram.ld)  # its code in BIGRAM (memory.ld)
set(board_stack_size 65536)  # default of AUSPEX_FIRMWARE_STACK_SIZE, bytes at the top of RAM
# memory.ld's BIGRAM stands in for memory-mapped external (QSPI) flash: the Chronos-Bolt images read their
# model in place from there (ports/firmware/chronos_bolt.cmake), and `auspex inspect --board` checks models
# too big for the code memory against it.
set(board_external_flash ON)
