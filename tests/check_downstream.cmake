# cmake -DBUILD_DIR=<vkstark build> -DSOURCE_DIR=<vkstark source> -DDIR=<scratch dir> -DLIBDIR=<lib>
#       -DGENERATOR=<generator> -DCXX=<compiler> -DBUILD_TYPE=<type> -P check_downstream.cmake
#
# The installed package works downstream: installs BUILD_DIR into DIR/prefix, checks the tree (the
# library, the headers, no test or bench code, no absolute paths into the source or build tree in
# the CMake files), builds tests/downstream against it with only CMAKE_PREFIX_PATH, and runs the
# program on the CPU executor and on Vulkan: each must verify its proof and reject a tampered one.
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

foreach(file ${LIBDIR}/libvkstark.a ${LIBDIR}/cmake/vkstark/vkstarkConfig.cmake
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

foreach(executor cpu vulkan)
  run("downstream ${executor}" ${DIR}/build/downstream ${executor})
  string(STRIP "${out}" out)
  message(STATUS "${out}")
endforeach()
