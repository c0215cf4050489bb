# One shard of the doctest suite, for ctest to run the shards side by side (ctest -j N, one core each):
# the test cases in one fixed pseudo-random order (so that the heavy CLI and conversion cases, which sit
# together by name and by file, spread over the shards), shard SHARD of SHARDS taking its contiguous range
# of that order. Every case runs in exactly one shard; the order is doctest's --order-by=rand with a fixed
# seed, the same in every shard.
#   cmake -DTEST=auspex_tests -DSHARD=k -DSHARDS=n [-DEMULATOR=qemu|-cpu|a53] -P run_test_shard.cmake
# EMULATOR: the cross build's emulator command, its arguments separated by | (a ; would split the argument).
cmake_minimum_required(VERSION 3.16)
foreach(var TEST SHARD SHARDS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_test_shard.cmake: -D${var}= is required")
  endif()
endforeach()
set(emulator "")
if(EMULATOR)
  string(REPLACE "|" ";" emulator "${EMULATOR}")
endif()
set(order --order-by=rand --rand-seed=20261127)

execute_process(COMMAND ${emulator} ${TEST} ${order} --count OUTPUT_VARIABLE listing ERROR_VARIABLE listing
                RESULT_VARIABLE rc)
string(REGEX MATCH "passing the current filters: ([0-9]+)" found "${listing}")
if(NOT rc EQUAL 0 OR NOT found)
  message(FATAL_ERROR "run_test_shard.cmake: could not count the test cases of ${TEST} (exit ${rc}):\n${listing}")
endif()
set(cases ${CMAKE_MATCH_1})
math(EXPR first "${cases} * ${SHARD} / ${SHARDS} + 1")
math(EXPR last "${cases} * (${SHARD} + 1) / ${SHARDS}")
if(last LESS first)
  message(STATUS "shard ${SHARD} of ${SHARDS}: no test cases")
  return()
endif()
message(STATUS "shard ${SHARD} of ${SHARDS}: test cases ${first}-${last} of ${cases}")
execute_process(COMMAND ${emulator} ${TEST} ${order} --first=${first} --last=${last} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "shard ${SHARD} of ${SHARDS} failed (exit ${rc})")
endif()
