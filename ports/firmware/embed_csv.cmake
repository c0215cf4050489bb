# Writes a CSV time series (one row per step, comma-separated, optional header line, an optional first column
# of timestamps, which is left out) as a C/C++ header:
#   #define NAME_ROWS r / NAME_COLS c  and  static const float NAME[r * c] = {...};
# Each value is copied as written with an f suffix, so the compiler rounds it to the same float32 the host
# tools' CSV reader (from_chars) produces: the board sees bit-identical inputs.
#
#   cmake -DCSV=history.csv -DOUT=history.h -DNAME=example_history -P embed_csv.cmake
foreach(var CSV OUT NAME)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "embed_csv.cmake: -D${var}=... is required")
  endif()
endforeach()

set(number "^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$")
file(STRINGS "${CSV}" lines)
set(values "")
set(rows 0)
set(cols 0)
set(first TRUE)
set(time_column FALSE)
foreach(line IN LISTS lines)
  string(STRIP "${line}" line)
  if(line STREQUAL "")
    continue()
  endif()
  string(REPLACE "," ";" fields "${line}")
  # A time column: the first field of a data row is not a number, every other one is.
  if(NOT first OR time_column)
    list(GET fields 0 f0)
    if(NOT f0 MATCHES "${number}")
      set(time_column TRUE)
    endif()
  endif()
  if(time_column AND NOT first)
    list(REMOVE_AT fields 0)
  endif()
  set(header FALSE)
  foreach(f IN LISTS fields)
    string(STRIP "${f}" f)
    if(NOT f MATCHES "${number}")
      set(header TRUE)
    endif()
  endforeach()
  if(header)
    if(NOT first)
      message(FATAL_ERROR "${CSV}: \"${line}\" is not a row of numbers")
    endif()
    set(first FALSE)
    continue()
  endif()
  set(first FALSE)
  list(LENGTH fields n)
  if(rows EQUAL 0)
    set(cols ${n})
  elseif(NOT n EQUAL cols)
    message(FATAL_ERROR "${CSV}: row ${rows} has ${n} values, the first row ${cols}")
  endif()
  set(row "")
  foreach(f IN LISTS fields)
    string(STRIP "${f}" f)
    string(REGEX REPLACE "^[+]" "" f "${f}")
    if(NOT f MATCHES "[.eE]")
      set(f "${f}.")  # 12 -> 12.f, a valid float literal
    endif()
    string(APPEND row " ${f}f,")
  endforeach()
  string(APPEND values "   ${row}\n")
  math(EXPR rows "${rows} + 1")
endforeach()
if(rows EQUAL 0)
  message(FATAL_ERROR "${CSV}: no data rows")
endif()

string(TOUPPER "${NAME}" N)
set(text "/* Generated from ${CSV} by embed_csv.cmake. Do not edit. */
#ifndef ${N}_CSV_H
#define ${N}_CSV_H
#define ${N}_ROWS ${rows}
#define ${N}_COLS ${cols}
static const float ${NAME}[${N}_ROWS * ${N}_COLS] = {
${values}};
#endif
")
# Rewrite only on change, so dependants are not rebuilt for nothing.
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
  if(old STREQUAL text)
    return()
  endif()
endif()
file(WRITE "${OUT}" "${text}")
