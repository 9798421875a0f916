# cmake -DEXE=<executable> "-DARGS=<arg>|<arg>..." -P check_quiet.cmake
#
# A run with --quiet that succeeds prints nothing on stderr: no progress, no info log lines (such
# as the executor auto's choice of the CPU).
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND "${EXE}" ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
get_filename_component(name "${EXE}" NAME)
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "${name} ${args}: exit status '${rc}', expected 0\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(NOT err STREQUAL "")
  message(FATAL_ERROR "${name} ${args}: printed to stderr under --quiet:\n${err}")
endif()
