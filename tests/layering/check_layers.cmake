# Proves that each layer's include root rejects an upward include: compiles one probe per rule with the
# include directories the layer's own target compiles with, and fails if an upward include compiles or a
# downward one does not. Run by CTest (test "layering"); arguments: CXX, DIR (this folder) and
# INCLUDES_<layer> (';'-separated, from the targets).
set(failures "")
function(probe layer header expect)
  string(REPLACE "/" "_" tag "${layer}_${header}")
  set(src "${CMAKE_CURRENT_BINARY_DIR}/probe_${tag}.cpp")
  file(WRITE "${src}" "#include \"${header}\"\nint main() { return 0; }\n")
  set(flags "")
  foreach(d ${INCLUDES_${layer}})
    list(APPEND flags "-I${d}")
  endforeach()
  execute_process(COMMAND ${CXX} -std=c++17 -fsyntax-only ${flags} "${src}"
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    set(got compiles)
  else()
    set(got fails)
  endif()
  if(NOT got STREQUAL expect)
    set(failures "${failures}\n  ${layer} including ${header}: ${got}, should be: ${expect}" PARENT_SCOPE)
  else()
    message(STATUS "${layer} including ${header}: ${got}, as it should")
  endif()
endfunction()

# Downward includes compile (the probes are real, not broken by a missing flag) ...
probe(runtime runtime/status.h compiles)
probe(ports runtime/kernels.h compiles)
probe(ports ports/ports.h compiles)
probe(models runtime/status.h compiles)
probe(models models/forecaster/forecaster.h compiles)
probe(tools tools/common/tool_error.h compiles)
probe(tools models/forecaster/forecaster.h compiles)
# ... upward or sideways ones do not.
probe(runtime models/forecaster/forecaster.h fails)
probe(runtime ports/ports.h fails)
probe(runtime tools/common/tool_error.h fails)
probe(ports models/forecaster/forecaster.h fails)
probe(ports tools/common/tool_error.h fails)
probe(models tools/common/tool_error.h fails)
probe(models ports/ports.h fails)

if(failures)
  message(FATAL_ERROR "layering broken:${failures}")
endif()
