# Arm MPS2 AN386: Cortex-M4F, 4 MB code memory, 4 MB RAM, 16 MB PSRAM.
set(board_cpu cortex-m4)  # AUSPEX_CORTEX_M_CPU (ports/toolchains/arm-none-eabi.cmake)
set(board_qemu_machine mps2-an386)  # qemu-system-arm -M
# What `auspex inspect --board` prints; @CODE@ and @RAM@ are the sizes of memory.ld's CODE and RAM regions.
set(board_description "Cortex-M4F, @CODE@ code memory, @RAM@ RAM")
set(board_firmware_tests ON)  # default of AUSPEX_FIRMWARE_TESTS: build and run the doctest image
set(board_test_image image_bigram.ld)  # its code in BIGRAM (memory.ld)
set(board_stack_size 65536)  # default of AUSPEX_FIRMWARE_STACK_SIZE, bytes at the top of RAM
set(board_route_tests ON)  # also run the example route on a covariate and an encoder-only model (one board is enough)
set(board_slot_test ON)  # build and run forecast_slots.elf: its 4 MB RAM holds two emulated flash slots
