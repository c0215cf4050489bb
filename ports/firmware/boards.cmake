# A board is one folder, ports/firmware/boards/<board>/: memory.ld (its memory regions) and board.cmake (its
# core, its qemu machine, its firmware defaults, a one-line description). This file is their one reader: the
# firmware build (firmware.cmake) takes a board's settings from it, and the host build generates from it the
# table of boards `auspex inspect --board` knows, so adding a board is adding its folder.
#
#   auspex_read_board(DIR)             sets, in the caller's scope, the board_* variables of DIR/board.cmake
#                                      and board_name, board_code_bytes, board_ram_bytes (the LENGTH of
#                                      memory.ld's CODE and RAM regions) and board_summary (board_description
#                                      with @CODE@ and @RAM@ replaced by those sizes, e.g. "1 MB", "128 KB")
#   auspex_write_board_table(OUT)      OUT: one C++ initializer {name, code bytes, RAM bytes, summary, cpu,
#                                      external flash bytes} per board folder, in name order (external flash:
#                                      memory.ld's BIGRAM on a board with board_external_flash ON, else 0)
#   AUSPEX_RUNTIME_STACK_BUDGET        the bytes of stack the runtime's worst case may use below its caller on
#                                      every board (make stack fails above it; inspect --board reports it)
set(AUSPEX_BOARDS_DIR ${CMAKE_CURRENT_LIST_DIR}/boards)
set(AUSPEX_RUNTIME_STACK_BUDGET 3584)

# LENGTH of a region of a linker script's MEMORY block, in bytes and as text ("4 MB", "512 KB").
function(auspex_ld_region ld region bytes_var text_var)
  file(STRINGS ${ld} lines REGEX "^[ \t]*${region}[ \t]*\\(")
  if(NOT lines MATCHES "LENGTH[ \t]*=[ \t]*([0-9]+)[ \t]*([KM]?)")
    message(FATAL_ERROR "${ld}: no region ${region} with a LENGTH in K or M (e.g. ${region} (rwx) : ORIGIN = 0x20000000, LENGTH = 128K)")
  endif()
  set(n ${CMAKE_MATCH_1})
  if(CMAKE_MATCH_2 STREQUAL "M")
    math(EXPR bytes "${n} * 1048576")
    set(text "${n} MB")
  elseif(CMAKE_MATCH_2 STREQUAL "K")
    math(EXPR bytes "${n} * 1024")
    set(text "${n} KB")
  else()
    set(bytes ${n})
    set(text "${n} B")
  endif()
  set(${bytes_var} ${bytes} PARENT_SCOPE)
  set(${text_var} "${text}" PARENT_SCOPE)
endfunction()

# A macro: board.cmake's set() calls land in the caller's scope.
macro(auspex_read_board dir)
  foreach(_v cpu qemu_machine firmware_tests test_image stack_size example_window example_horizon
             example_convert slot_test route_tests external_flash description)
    unset(board_${_v})
  endforeach()
  get_filename_component(board_name ${dir} NAME)
  if(NOT EXISTS ${dir}/board.cmake OR NOT EXISTS ${dir}/memory.ld)
    file(GLOB _known RELATIVE ${AUSPEX_BOARDS_DIR} ${AUSPEX_BOARDS_DIR}/*)
    message(FATAL_ERROR "board ${board_name}: no ${dir}/board.cmake and memory.ld; boards: ${_known}")
  endif()
  include(${dir}/board.cmake)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${dir}/board.cmake ${dir}/memory.ld)
  foreach(_v cpu qemu_machine firmware_tests test_image stack_size description)
    if("${board_${_v}}" STREQUAL "")
      message(FATAL_ERROR "${dir}/board.cmake: set board_${_v} (ports/firmware/README.md, \"Adding a board\")")
    endif()
  endforeach()
  auspex_ld_region(${dir}/memory.ld CODE board_code_bytes _code)
  auspex_ld_region(${dir}/memory.ld RAM board_ram_bytes _ram)
  string(REPLACE "@CODE@" "${_code}" board_summary "${board_description}")
  string(REPLACE "@RAM@" "${_ram}" board_summary "${board_summary}")
  if(board_summary MATCHES "[\"\\\\]")
    message(FATAL_ERROR "${dir}/board.cmake: board_description may hold neither quotes nor backslashes")
  endif()
endmacro()

function(auspex_write_board_table out)
  file(GLOB dirs LIST_DIRECTORIES true CONFIGURE_DEPENDS ${AUSPEX_BOARDS_DIR}/*)
  set(rows "")
  foreach(dir ${dirs})
    if(IS_DIRECTORY ${dir})
      auspex_read_board(${dir})
      set(_external 0)
      if(board_external_flash)
        auspex_ld_region(${dir}/memory.ld BIGRAM _external _external_text)
      endif()
      string(APPEND rows "    {\"${board_name}\", ${board_code_bytes}u, ${board_ram_bytes}u, \"${board_summary}\", \"${board_cpu}\", ${_external}u},\n")
    endif()
  endforeach()
  if(rows STREQUAL "")
    message(FATAL_ERROR "no board folders in ${AUSPEX_BOARDS_DIR}")
  endif()
  file(CONFIGURE OUTPUT ${out} CONTENT
       "// Generated from ports/firmware/boards/*/ by ports/firmware/boards.cmake: edit the board folders.\n${rows}"
       @ONLY)
endfunction()
