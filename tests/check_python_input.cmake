# cmake -DVKSTARK=<vkstark executable> -DPYTHON=<python3> -DSCRIPT=<tests/support/write_proving_input.py>
#       -DDIR=<scratch dir> -DEXECUTOR=cpu|vulkan -P check_python_input.cmake
#
# A proving input written by another program from docs/proving-input.md alone (the Python writer):
# it has the bytes of `vkstark trace` for the same computation, and `prove --vk --input` proves it
# against the key of `keygen`, which `verify` accepts. Then Python-written inputs that must fail: a
# byte table multiplicity off by one (the bus does not balance: prove's own verification rejects
# the proof) and a byte table other than the key's (its preprocessed commitment differs).
file(REMOVE_RECURSE "${DIR}")
file(MAKE_DIRECTORY "${DIR}")

include(${CMAKE_CURRENT_LIST_DIR}/vkstark_run.cmake)  # run(<exit status> <expected texts> <args>...)

# python_input(<file> <extra args>...): the interactions input of 512 rows from the Python writer.
function(python_input file)
  execute_process(COMMAND "${PYTHON}" "${SCRIPT}" interactions --rows 512 --out "${file}" ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
  if(NOT rc STREQUAL "0" OR NOT EXISTS "${file}")
    message(FATAL_ERROR "${PYTHON} ${SCRIPT} interactions --rows 512 --out ${file} ${ARGN}: exit status '${rc}'\n"
                        "stdout:\n${out}\nstderr:\n${err}")
  endif()
  message(STATUS "${SCRIPT} ${ARGN}: ${out}${err}")
endfunction()

set(vk "${DIR}/interactions.vk")
set(py "${DIR}/python.vki")
set(cpp "${DIR}/vkstark.vki")
python_input("${py}")
run(0 "wrote ${cpp}" trace --air interactions --rows 512 --out "${cpp}")
file(SHA256 "${py}" sha_py)
file(SHA256 "${cpp}" sha_cpp)
if(NOT sha_py STREQUAL sha_cpp)
  message(FATAL_ERROR "the Python writer's input ${py} differs from vkstark trace's ${cpp}")
endif()
run(0 "wrote ${vk}" keygen --air interactions --params test --executor ${EXECUTOR} --out "${vk}")
run(0 "given as data" prove --vk "${vk}" --input "${py}" --executor ${EXECUTOR} --out "${DIR}/python.vkp")
run(0 "accepted: " verify "${DIR}/python.vkp" --vk "${vk}")

# A multiplicity off by one: the input decodes and fits the key, but the bus does not balance.
python_input("${DIR}/multiplicity.vki" --tamper multiplicity)
run(1 "the proof does not verify" prove --vk "${vk}" --input "${DIR}/multiplicity.vki" --executor ${EXECUTOR}
    --out "${DIR}/x.vkp")
# Another byte table (255 replaced by 256): not the preprocessed trace the key was made with.
python_input("${DIR}/table.vki" --tamper table)
run(1 "preprocessed trace;not the one the verifying key was made with" prove --vk "${vk}" --input "${DIR}/table.vki"
    --executor ${EXECUTOR} --out "${DIR}/x.vkp")
if(EXISTS "${DIR}/x.vkp")
  message(FATAL_ERROR "a failed prove wrote ${DIR}/x.vkp")
endif()
