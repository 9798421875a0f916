# vkstark_embed_shaders(<out_var> SHADERS a.comp ... DEPENDS x.glsl ... INCLUDE_DIRS dir...
#                       ABI_GENERATOR <target>)
#
# Generates each kernel's GLSL interface (abi/<name>.glsl) from its C++ Args with the ABI_GENERATOR
# tool (kernels/glsl/generate_abi.cpp), then compiles every compute shader to SPIR-V with
# glslangValidator at build time and embeds the words in the library. Each kernel `foo.comp`
# becomes the array `vkstark_spv_foo`; a generated table (`embedded_shaders.cpp`) maps the kernel
# name to its words (see kernels/glsl/shaders.hpp).
#
# A kernel's interface is declared once, in its Args: before compiling `foo.comp`, the build checks
# (vkstark_check_shader_interface, run by this file in script mode) that it includes
# "abi/foo.glsl" right after its #version / #extension lines and that neither it nor a shared
# header (DEPENDS) declares descriptor bindings or push constants itself. Likewise for the named
# constants a kernel shares with C++ (K::constants, written into abi/foo.glsl): neither foo.comp nor
# a shared header may declare one of them again, nor a `const uint` whose comment names the C++
# constant it copies (`// kFooLanes`, `// Foo::workgroup_size`).

# The lines of `file` as a list. Semicolons and square brackets (list syntax) are kept out of the
# elements as placeholders; vkstark_line_text puts them back.
function(vkstark_read_lines file out_var)
  file(READ ${file} text)
  string(REPLACE ";" "<vks:semicolon>" text "${text}")
  string(REPLACE "[" "<vks:lbracket>" text "${text}")
  string(REPLACE "]" "<vks:rbracket>" text "${text}")
  string(REPLACE "\n" ";" text "${text}")
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

function(vkstark_line_text line out_var)
  string(REPLACE "<vks:semicolon>" ";" line "${line}")
  string(REPLACE "<vks:lbracket>" "[" line "${line}")
  string(REPLACE "<vks:rbracket>" "]" line "${line}")
  string(STRIP "${line}" line)
  set(${out_var} "${line}" PARENT_SCOPE)
endfunction()

# The names of the constants declared in the generated interface `abi_file` (`const uint NAME ...`).
function(vkstark_generated_constants abi_file out_var)
  set(names "")
  if(EXISTS ${abi_file})
    vkstark_read_lines(${abi_file} lines)
    foreach(line IN LISTS lines)
      if(line MATCHES "^const uint ([A-Z][A-Z0-9_]*)")
        list(APPEND names ${CMAKE_MATCH_1})
      endif()
    endforeach()
  endif()
  set(${out_var} "${names}" PARENT_SCOPE)
endfunction()

# Fails with a message naming the file and line when `shader` (kernels/glsl/<name>.comp) does not
# take its interface from abi/<name>.glsl, or when it or one of the shared headers given after it
# declares bindings or push constants, or a constant that the interfaces in `abi_dir` generate
# (the kernel's own for the .comp, any kernel's for a shared header), or a hand copy of a C++
# constant.
function(vkstark_check_shader_interface shader abi_dir)
  get_filename_component(name ${shader} NAME_WE)
  set(problems "")
  vkstark_generated_constants(${abi_dir}/${name}.glsl own_constants)
  file(GLOB abi_files ${abi_dir}/*.glsl)
  set(all_constants "")
  foreach(abi_file IN LISTS abi_files)
    vkstark_generated_constants(${abi_file} constants)
    list(APPEND all_constants ${constants})
  endforeach()
  list(REMOVE_DUPLICATES all_constants)
  # A constant or macro whose comment names a C++ constant (kFoo, Foo::bar): a copy made by hand.
  set(copies "^[ \t]*(const[ \t]+uint|#[ \t]*define)[ \t]+[A-Za-z_].*//.*(k[A-Z][A-Za-z0-9]*|[A-Za-z0-9_]::[A-Za-z_])")
  foreach(file IN ITEMS ${shader} ${ARGN})
    if(file STREQUAL shader)
      set(generated ${own_constants})
      set(whose "abi/${name}.glsl generates from the kernel's C++ declaration")
    else()
      set(generated ${all_constants})
      set(whose "a kernel's generated interface declares (the kernel that includes this header has it)")
    endif()
    # NAME = ..., NAME[n] = ... (not NAME == ...), or #define NAME.
    list(JOIN generated "|" alternatives)
    set(declares "(^|[^A-Za-z0-9_.])(${alternatives})[ \t]*(<vks:lbracket>[^<]*<vks:rbracket>)?[ \t]*=([^=]|$)")
    set(defines "^[ \t]*#[ \t]*define[ \t]+(${alternatives})([ \t(]|$)")
    vkstark_read_lines(${file} lines)
    set(n 0)
    foreach(line IN LISTS lines)
      math(EXPR n "${n} + 1")
      if(line MATCHES "layout[ \t]*\\(([^)]*[, \t])?(set|binding)[ \t]*=" OR line MATCHES "push_constant"
         OR line MATCHES "VKS_PUSH_")
        vkstark_line_text("${line}" line)
        string(APPEND problems "\n  ${file}:${n}: declares a binding or push constants: `${line}`")
      endif()
      string(REGEX REPLACE "//.*$" "" code "${line}")  # comments may name the constants
      set(constant "")
      if(generated AND code MATCHES "${defines}")
        set(constant "${CMAKE_MATCH_1}")
      elseif(generated AND code MATCHES "${declares}")
        set(constant "${CMAKE_MATCH_2}")
      endif()
      if(constant)
        vkstark_line_text("${line}" line)
        string(APPEND problems "\n  ${file}:${n}: declares ${constant}, which ${whose} (its constants, "
                               "runtime/kernel_abi.hpp KernelConstant): `${line}`")
      elseif(line MATCHES "${copies}")
        vkstark_line_text("${line}" line)
        string(APPEND problems "\n  ${file}:${n}: copies a C++ constant by hand (its comment names it): declare it "
                               "in the kernel's constants (runtime/kernel_abi.hpp KernelConstant): `${line}`")
      endif()
    endforeach()
  endforeach()
  # The first line that is not #version, #extension, blank or a comment must be the ABI include.
  vkstark_read_lines(${shader} lines)
  set(first "")
  set(n 0)
  foreach(line IN LISTS lines)
    math(EXPR n "${n} + 1")
    string(STRIP "${line}" line)
    if(line MATCHES "^#include[ \t]*\"runtime.glsl\"")
      string(APPEND problems "\n  ${shader}:${n}: includes runtime.glsl (abi/${name}.glsl includes it)")
    endif()
    if(first STREQUAL "" AND NOT (line STREQUAL "" OR line MATCHES "^#version" OR line MATCHES "^#extension"
                                  OR line MATCHES "^//"))
      set(first "${line}")
    endif()
  endforeach()
  if(NOT first STREQUAL "#include \"abi/${name}.glsl\"")
    vkstark_line_text("${first}" first)
    string(APPEND problems "\n  ${shader}: the first line after #version / #extension must be "
                           "#include \"abi/${name}.glsl\" (found `${first}`)")
  endif()
  if(problems)
    message(FATAL_ERROR "kernel ${name}: its interface and constants are generated from its C++ declaration "
                        "(runtime/kernel_abi.hpp); its .comp includes abi/${name}.glsl and declares none of it "
                        "itself:${problems}")
  endif()
endfunction()

function(vkstark_embed_shaders out_var)
  cmake_parse_arguments(ARG "" "ABI_GENERATOR" "SHADERS;DEPENDS;INCLUDE_DIRS" ${ARGN})
  set(abi_root ${CMAKE_CURRENT_BINARY_DIR}/generated/glsl)
  set(include_flags -I${abi_root})
  foreach(dir IN LISTS ARG_INCLUDE_DIRS)
    list(APPEND include_flags -I${dir})
  endforeach()
  set(names)
  set(abi_headers)
  foreach(shader IN LISTS ARG_SHADERS)
    get_filename_component(name ${shader} NAME_WE)
    list(APPEND names ${name})
    list(APPEND abi_headers ${abi_root}/abi/${name}.glsl)
  endforeach()
  # One run writes every interface and checks that kernels and .comp files pair up. A single stamp
  # output keeps parallel make from running it twice; every shader depends on it (recompiling all of
  # them takes seconds).
  set(abi_stamp ${abi_root}/abi.stamp)
  add_custom_command(
    OUTPUT ${abi_stamp}
    BYPRODUCTS ${abi_headers}
    COMMAND $<TARGET_FILE:${ARG_ABI_GENERATOR}> ${abi_root} ${names}
    COMMAND ${CMAKE_COMMAND} -E touch ${abi_stamp}
    DEPENDS ${ARG_ABI_GENERATOR}
    COMMENT "Generating the GLSL interfaces of the kernels from their Args"
    VERBATIM)
  set(gen_dir ${CMAKE_CURRENT_BINARY_DIR}/generated/spv)
  file(MAKE_DIRECTORY ${gen_dir})
  set(headers)
  set(includes "")
  set(entries "")
  foreach(shader IN LISTS ARG_SHADERS)
    get_filename_component(name ${shader} NAME_WE)
    set(header ${gen_dir}/${name}.h)
    add_custom_command(
      OUTPUT ${header}
      COMMAND ${CMAKE_COMMAND} -DVKSTARK_SHADER=${shader} -DVKSTARK_ABI_DIR=${abi_root}/abi
              "-DVKSTARK_SHADER_HEADERS=${ARG_DEPENDS}" -P ${CMAKE_CURRENT_FUNCTION_LIST_FILE}
      COMMAND ${GLSLANG_VALIDATOR} -V --target-env vulkan1.2 --quiet ${include_flags}
              --vn vkstark_spv_${name} -o ${header} ${shader}
      DEPENDS ${shader} ${ARG_DEPENDS} ${abi_stamp} ${CMAKE_CURRENT_FUNCTION_LIST_FILE}
      COMMENT "glslangValidator ${name}.comp"
      VERBATIM)
    list(APPEND headers ${header})
    string(APPEND includes "#include \"spv/${name}.h\"\n")
    string(APPEND entries "    {\"${name}\", {vkstark_spv_${name}, sizeof(vkstark_spv_${name}) / sizeof(uint32_t)}},\n")
  endforeach()
  set(table ${CMAKE_CURRENT_BINARY_DIR}/generated/embedded_shaders.cpp)
  set(content "// Generated by cmake/EmbedShaders.cmake. Do not edit.\n#include <cstdint>\n${includes}\n#include \"kernels/glsl/shaders.hpp\"\n\nnamespace vkstark::vulkan {\nstd::span<const EmbeddedShader> embedded_shaders() {\n  static const EmbeddedShader table[] = {\n${entries}    {\"\", {}}};\n  return {table, sizeof(table) / sizeof(table[0]) - 1};\n}\n}  // namespace vkstark::vulkan\n")
  # Rewrite only when the list changed, so that a re-configure does not rebuild the table.
  if(EXISTS ${table})
    file(READ ${table} old)
  else()
    set(old "")
  endif()
  if(NOT old STREQUAL content)
    file(WRITE ${table} "${content}")
  endif()
  set_source_files_properties(${table} PROPERTIES OBJECT_DEPENDS "${headers}")
  set(${out_var} ${table} ${headers} PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  vkstark_check_shader_interface(${VKSTARK_SHADER} ${VKSTARK_ABI_DIR} ${VKSTARK_SHADER_HEADERS})
endif()
