# Arm MPS3 AN547: Cortex-M55 with Helium, 512 KB ITCM, 512 KB DTCM, 16 MB DDR.
set(board_cpu cortex-m55)  # AUSPEX_CORTEX_M_CPU (ports/toolchains/arm-none-eabi.cmake)
set(board_qemu_machine mps3-an547)  # qemu-system-arm -M
# What `auspex inspect --board` prints; @CODE@ and @RAM@ are the sizes of memory.ld's CODE and RAM regions.
set(board_description "Cortex-M55, @CODE@ ITCM, @RAM@ DTCM")
set(board_firmware_tests ON)  # default of AUSPEX_FIRMWARE_TESTS: build and run the doctest image
set(board_test_image image_bigram.ld)  # its code in BIGRAM (memory.ld)
set(board_stack_size 65536)  # default of AUSPEX_FIRMWARE_STACK_SIZE, bytes at the top of RAM
# memory.ld's BIGRAM stands in for memory-mapped external (QSPI) flash: the Chronos-Bolt images read their
# model in place from there (ports/firmware/chronos_bolt.cmake), and `auspex inspect --board` checks models
# too big for the code memory against it.
set(board_external_flash ON)
