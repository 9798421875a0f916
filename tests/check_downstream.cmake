# cmake -DBUILD_DIR=<vkstark build> -DSOURCE_DIR=<vkstark source> -DDIR=<scratch dir> -DLIBDIR=<lib>
#       -DGENERATOR=<generator> -DCXX=<compiler> -DBUILD_TYPE=<type> -P check_downstream.cmake
#
# The installed package works downstream: installs BUILD_DIR into DIR/prefix, checks the tree (the
# command, the library, the headers, no test or bench code, no absolute paths into the source or build tree in
# the CMake files), runs the installed command (keygen, trace, prove --vk --input, verify), builds
# tests/downstream against it with only CMAKE_PREFIX_PATH (vkstark::vkstark and vkstark::cli), and
# runs the program on the CPU executor and on Vulkan: each must verify its proof and reject a tampered one.
# Then its broken traces (a transition violated, a value outside the lookup table, a wrong
# multiplicity) must each fail in the debug checker, whose message must name the AIR, the
# constraint or bus, the row and the columns (by the names of the program's column structs). The
# checker runs on the host before the proof, whatever the executor: these run on the CPU only.
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "package.downstream: ${what} failed (exit status '${rc}'):\n${out}")
  endif()
  message(STATUS "${what}: ok")
  set(out "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${DIR}/prefix)
file(REMOVE_RECURSE ${DIR})
run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

foreach(file bin/vkstark ${LIBDIR}/libvkstark_runtime.a ${LIBDIR}/libvkstark_kernels.a ${LIBDIR}/libvkstark_executors.a
             ${LIBDIR}/libvkstark_stages.a ${LIBDIR}/libvkstark_product.a ${LIBDIR}/cmake/vkstark/vkstarkConfig.cmake
             ${LIBDIR}/cmake/vkstark/vkstarkConfigVersion.cmake ${LIBDIR}/cmake/vkstark/vkstarkTargets.cmake
             include/vkstark/stages/prover.hpp include/vkstark/kernels/program_limits.h)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "package.downstream: the install has no ${file}")
  endif()
endforeach()
file(GLOB_RECURSE installed RELATIVE ${prefix} ${prefix}/*)
list(FILTER installed INCLUDE REGEX "(^|/)(tests|bench|fuzz|support|examples)/")
if(installed)
  message(FATAL_ERROR "package.downstream: test, bench or example files installed: ${installed}")
endif()
file(GLOB cmake_files ${prefix}/${LIBDIR}/cmake/vkstark/*.cmake)
foreach(file IN LISTS cmake_files)
  file(READ ${file} text)
  foreach(tree ${SOURCE_DIR} ${BUILD_DIR})
    string(FIND "${text}" "${tree}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "package.downstream: ${file} names ${tree}: the package is not relocatable")
    endif()
  endforeach()
endforeach()

run("configure tests/downstream" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/downstream -B ${DIR}/build -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=${BUILD_TYPE})
file(STRINGS ${DIR}/build/CMakeCache.txt found REGEX "^vkstark_DIR:")
if(NOT found STREQUAL "vkstark_DIR:PATH=${prefix}/${LIBDIR}/cmake/vkstark")
  message(FATAL_ERROR "package.downstream: found another vkstark package: ${found}")
endif()
run("build tests/downstream" ${CMAKE_COMMAND} --build ${DIR}/build -j 2)

# The installed command proves and verifies a shipped AIR given as data.
run("installed vkstark keygen" ${prefix}/bin/vkstark keygen --air fibonacci --params test --executor cpu
    --out ${DIR}/fib.vk)
run("installed vkstark trace" ${prefix}/bin/vkstark trace --air fibonacci --rows 64 --out ${DIR}/fib.vki)
run("installed vkstark prove" ${prefix}/bin/vkstark prove --vk ${DIR}/fib.vk --input ${DIR}/fib.vki --executor cpu
    --quiet --out ${DIR}/fib.vkp)
run("installed vkstark verify" ${prefix}/bin/vkstark verify ${DIR}/fib.vkp --vk ${DIR}/fib.vk)

foreach(executor cpu vulkan)
  run("downstream ${executor}" ${DIR}/build/downstream ${executor} good)
  string(STRIP "${out}" out)
  message(STATUS "${out}")
endforeach()

# downstream cpu <variant> must exit 0 (the prover threw the checker's InputError) and print a
# message holding every one of ARGN. The rows follow tests/downstream/main.cpp: kBadRow = 13, where
# x = (13 * 37 + 11) % 64 = 44 (bad-multiplicity counts it twice in the table) or 70 (bad-range).
function(expect_debug_message variant)
  run("downstream cpu ${variant}" ${DIR}/build/downstream cpu ${variant})
  foreach(expected IN LISTS ARGN)
    string(FIND "${out}" "${expected}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "package.downstream: the debug checker's message for ${variant} does not say "
                          "'${expected}':\n${out}")
    endif()
  endforeach()
  string(STRIP "${out}" out)
  message(STATUS "${out}")
endfunction()

# acc is one too high from row 13 on: the transition from row 12 fails, and the message names the
# AIR, the constraint's expression, the row and the columns it reads (acc' on the next row).
expect_debug_message(bad-transition "downstream bad-transition: the debug checker: debug checker: 1 constraint failure"
                     "AIR downstream_accumulator: constraint 3 fails at row 12 (value 1)"
                     "is_transition * (acc' - (acc + (x * x)))" "reads x = 7, acc = 17138, acc' = 17188 (row 13)")
# x = 70 at row 13: the range table has no row for it; the lookup bus names the sender's AIR, row
# and message columns.
expect_debug_message(bad-range "downstream bad-range: the debug checker: debug checker: 1 unbalanced bus message"
                     "bus 1 (range): message [70] has net multiplicity 1 (1 sends, 0 receives); nothing receives it"
                     "sent by AIR downstream_accumulator row 13 interaction 1 (message [x] count 1) with count 1")
# The table counts 44 twice, looked up once: the message names both sides, the table's row 44 and
# its columns value and multiplicity.
expect_debug_message(
  bad-multiplicity "downstream bad-multiplicity: the debug checker: debug checker: 1 unbalanced bus message"
  "bus 1 (range): message [44] has net multiplicity -1 (1 sends, 1 receives)"
  "sent by AIR downstream_accumulator row 13 interaction 1 (message [x] count 1) with count 1"
  "received by AIR downstream_range row 44 interaction 0 (message [value] count -(multiplicity)) with count -2")
