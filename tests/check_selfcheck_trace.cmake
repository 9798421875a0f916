# cmake -DSELFCHECK=<selfcheck> -DTRACE=<file> -P check_selfcheck_trace.cmake
#
# `selfcheck --executor cpu --trace FILE` must pass and write a Chrome trace: a JSON object whose
# traceEvents hold the three metadata events and at least one span.
file(REMOVE "${TRACE}")
execute_process(COMMAND "${SELFCHECK}" --executor cpu --trace "${TRACE}" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "selfcheck failed (${rc}):\n${out}")
endif()
if(NOT EXISTS "${TRACE}")
  message(FATAL_ERROR "selfcheck --trace ${TRACE} wrote no file:\n${out}")
endif()
file(READ "${TRACE}" json)
string(JSON events ERROR_VARIABLE error LENGTH "${json}" traceEvents)
if(error)
  message(FATAL_ERROR "${TRACE} is not a Chrome trace: ${error}")
endif()
if(events LESS 4)
  message(FATAL_ERROR "${TRACE} holds ${events} events, no span")
endif()
message(STATUS "${TRACE}: ${events} trace events")
