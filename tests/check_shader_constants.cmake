# cmake -DEMBED=<cmake/EmbedShaders.cmake> -DGLSL=<kernels/glsl> -DABI_DIR=<build>/generated/glsl/abi
#       -DWORK=<scratch dir> -P check_shader_constants.cmake
#
# The build refuses a GLSL constant that mirrors a C++ one (EmbedShaders.cmake): a kernel's .comp
# declaring a constant its generated interface declares, a shared header declaring one that some
# interface declares, or a constant whose comment names the C++ constant it copies. Each case is a
# copy of a real kernel with one line added; the check must fail naming the file and the line. The
# real kernels themselves must pass.
cmake_minimum_required(VERSION 3.20)  # list() keeps empty elements (CMP0007): blank lines
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

# Runs the build's check of `shader` with `headers`; sets rc and out in the caller.
function(run_check shader headers)
  execute_process(COMMAND ${CMAKE_COMMAND} -DVKSTARK_SHADER=${shader} -DVKSTARK_ABI_DIR=${ABI_DIR}
                          "-DVKSTARK_SHADER_HEADERS=${headers}" -P ${EMBED}
                  RESULT_VARIABLE code OUTPUT_VARIABLE o ERROR_VARIABLE e)
  set(rc "${code}" PARENT_SCOPE)
  set(out "${o}${e}" PARENT_SCOPE)
endfunction()

# A copy of GLSL/<file> in WORK with `line` inserted after line `after`.
function(copy_with_line file after line)
  file(READ ${GLSL}/${file} text)
  string(REPLACE ";" "<semicolon>" text "${text}")  # kept out of the list's syntax
  string(REPLACE "[" "<lbracket>" text "${text}")
  string(REPLACE "]" "<rbracket>" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  string(REPLACE ";" "<semicolon>" line "${line}")
  string(REPLACE "[" "<lbracket>" line "${line}")
  string(REPLACE "]" "<rbracket>" line "${line}")
  list(INSERT lines ${after} "${line}")
  list(JOIN lines "\n" text)
  string(REPLACE "<semicolon>" ";" text "${text}")
  string(REPLACE "<lbracket>" "[" text "${text}")
  string(REPLACE "<rbracket>" "]" text "${text}")
  file(WRITE ${WORK}/${file} "${text}")
endfunction()

function(expect_refused what shader headers expect)
  run_check(${shader} "${headers}")
  if(rc EQUAL 0)
    message(FATAL_ERROR "${what}: the check passed")
  endif()
  string(REGEX REPLACE "[ \n]+" " " flat "${out}")  # CMake wraps the message's first paragraph
  if(NOT flat MATCHES "${expect}")
    message(FATAL_ERROR "${what}: the message does not match '${expect}':\n${out}")
  endif()
  message(STATUS "${what}: refused")
endfunction()

foreach(real sumcheck_product_partials gkr_sumcheck_partials scalar_program)
  run_check(${GLSL}/${real}.comp "${GLSL}/gkr_sumcheck.glsl;${GLSL}/sponge_coop.glsl")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${real}.comp: the check refuses the real kernel:\n${out}")
  endif()
endforeach()

copy_with_line(sumcheck_product_partials.comp 4 "const uint LANES = 64u;")
expect_refused("a kernel's own generated constant" ${WORK}/sumcheck_product_partials.comp ""
               "sumcheck_product_partials.comp:5: declares LANES, which abi/sumcheck_product_partials.glsl generates")

copy_with_line(scalar_program.comp 6 "#define OP_SHAPE_COUNT 16u")  # another name: not refused as OP_SHAPE
run_check(${WORK}/scalar_program.comp "")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "a name that only starts like a generated one is refused:\n${out}")
endif()
copy_with_line(scalar_program.comp 6 "const uint OP_SHAPE[16] = uint[16](0u);")
expect_refused("a generated table" ${WORK}/scalar_program.comp "" "scalar_program.comp:7: declares OP_SHAPE")

copy_with_line(gkr_sumcheck.glsl 7 "#define GKR_LANES 64u")
expect_refused("a shared header's copy" ${GLSL}/gkr_sumcheck_partials.comp ${WORK}/gkr_sumcheck.glsl
               "gkr_sumcheck.glsl:8: declares GKR_LANES, which a kernel's generated interface declares")

copy_with_line(sumcheck_product_partials.comp 4 "const uint STRIDE = 64u;  // kSumcheckStride")
expect_refused("a constant copied by hand" ${WORK}/sumcheck_product_partials.comp ""
               "sumcheck_product_partials.comp:5: copies a C\\+\\+ constant by hand")
