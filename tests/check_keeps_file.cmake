# cmake -DEXE=<executable> "-DARGS=<arg>|<arg>..." -DFILE=<path> -DEXPECT=<text> -P check_keeps_file.cmake
#
# A run that fails after its command line was accepted leaves an existing output file as it was:
# FILE is written with known bytes, the executable must exit with status 1 and say EXPECT on
# stderr, and FILE must still hold those bytes, with no temporary file left beside it.
string(REPLACE "|" ";" args "${ARGS}")
get_filename_component(dir "${FILE}" DIRECTORY)
file(REMOVE_RECURSE "${dir}")
file(MAKE_DIRECTORY "${dir}")
file(WRITE "${FILE}" "the user's file\n")
execute_process(COMMAND "${EXE}" ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
get_filename_component(name "${EXE}" NAME)
set(what "${name} ${args}")
if(NOT rc STREQUAL "1")
  message(FATAL_ERROR "${what}: exit status '${rc}', expected 1\nstdout:\n${out}\nstderr:\n${err}")
endif()
string(FIND "${err}" "${EXPECT}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${what}: stderr does not say '${EXPECT}':\n${err}")
endif()
file(READ "${FILE}" kept)
if(NOT kept STREQUAL "the user's file\n")
  message(FATAL_ERROR "${what}: ${FILE} was changed to:\n${kept}")
endif()
file(GLOB left "${dir}/*")
list(LENGTH left n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "${what}: files left in ${dir}: ${left}")
endif()
