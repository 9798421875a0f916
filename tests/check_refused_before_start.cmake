# cmake -DEXE=<vkstark> -DEXECUTOR=<cpu|vulkan> -DDIR=<scratch dir> -P check_refused_before_start.cmake
#
# A proof larger than the device's memory budget (VKSTARK_DEVICE_MEMORY_BYTES, set by the test) is
# refused before anything runs: exit status 1, a message with the bytes the plan needs in the mode
# that needs least, the budget, and no proof written.
file(REMOVE_RECURSE "${DIR}")
file(MAKE_DIRECTORY "${DIR}")
execute_process(COMMAND "${EXE}" prove --air fibonacci --rows 1024 --params test --executor ${EXECUTOR} --quiet
                        --out "${DIR}/fib.vkp"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
if(NOT rc STREQUAL "1")
  message(FATAL_ERROR "exit status '${rc}', expected 1\nstdout:\n${out}\nstderr:\n${err}")
endif()
foreach(text "out of device memory: the proof needs " "in memory mode low" "more than the 65536 bytes of its budget"
             "nothing was allocated" "Even memory mode low needs ")
  string(FIND "${err}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "stderr does not say '${text}':\n${err}")
  endif()
endforeach()
if(EXISTS "${DIR}/fib.vkp")
  file(SIZE "${DIR}/fib.vkp" size)
  if(NOT size EQUAL 0)
    message(FATAL_ERROR "a proof was written (${size} bytes)")
  endif()
endif()
