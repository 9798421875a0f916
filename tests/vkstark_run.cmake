# The command-line checks' shared helper (include()d by check_vkstark_command.cmake,
# check_data_prove.cmake, check_python_input.cmake): runs ${VKSTARK} and checks its exit status and
# output.
#
# run(<expected exit status> <texts expected on stdout or stderr, a list> <args>...): a fatal error
# naming the command, its exit status and output when the status is another or a text is missing.
function(run want expect)
  execute_process(COMMAND "${VKSTARK}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 600)
  set(found TRUE)
  foreach(text IN LISTS expect)
    string(FIND "${out}${err}" "${text}" at)
    if(at EQUAL -1)
      set(found FALSE)
    endif()
  endforeach()
  if(NOT rc STREQUAL "${want}" OR NOT found)
    message(FATAL_ERROR "vkstark ${ARGN}: exit status '${rc}', expected ${want} and '${expect}'\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  message(STATUS "vkstark ${ARGN}: exit status ${rc}: ${out}${err}")
endfunction()
