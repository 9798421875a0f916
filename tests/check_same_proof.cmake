# cmake -DEXE=<executable> "-DARGS=<arg>|<arg>..." -DPROOF=<path> -DREFERENCE=<path> -P check_same_proof.cmake
#
# The executable proves (writing PROOF), verifies (exit status 0), and its proof is REFERENCE's
# bytes: the portability runs (a device profile, lavapipe's subgroup width) against the proof made
# without them.
string(REPLACE "|" ";" args "${ARGS}")
file(REMOVE "${PROOF}")
execute_process(COMMAND "${EXE}" ${args} --proof "${PROOF}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
get_filename_component(name "${EXE}" NAME)
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "${name} ${args}: exit status '${rc}'\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(NOT EXISTS "${REFERENCE}")
  message(FATAL_ERROR "no reference proof ${REFERENCE} (its fixture test did not run)")
endif()
file(SHA256 "${PROOF}" got)
file(SHA256 "${REFERENCE}" want)
if(NOT got STREQUAL want)
  file(SIZE "${PROOF}" got_size)
  file(SIZE "${REFERENCE}" want_size)
  message(FATAL_ERROR "${name} ${args}: the proof (${got_size} bytes, sha256 ${got}) is not the reference's "
                      "(${want_size} bytes, sha256 ${want}, ${REFERENCE})")
endif()
message(STATUS "${name} ${args}: the reference's bytes")
