# cmake -DNM=<nm> -DOBJECTS=<a.o|b.o|...> -P check_isa_symbols.cmake
#
# The per-ISA objects of the CPU kernels (sources named *_avx2.cpp / *_avx512.cpp, compiled for
# their SIMD level) may define no code that another object can link to except their entry points,
# whose names end in the ISA (poseidon2_permute_avx512, stockham_wide_avx2, ...). An inline function
# kept out of line there (a weak symbol) would carry AVX code the linker may pick for every caller,
# also on processors without it (docs/decisions.md, "CPU SIMD by run-time dispatch").
string(REPLACE "|" ";" objects "${OBJECTS}")
set(checked 0)
set(bad "")
foreach(obj IN LISTS objects)
  if(NOT obj MATCHES "_(avx2|avx512)\\.cpp\\.o$")
    continue()
  endif()
  set(isa ${CMAKE_MATCH_1})
  math(EXPR checked "${checked} + 1")
  execute_process(COMMAND ${NM} --defined-only --demangle ${obj} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} failed on ${obj}")
  endif()
  string(REPLACE "\n" ";" lines "${out}")
  foreach(line IN LISTS lines)
    # Global (T), weak (W) and indirect (i) code; data (constants) is harmless.
    if(line MATCHES "^[0-9a-f]+ ([TWi]) (.*)$")
      set(name "${CMAKE_MATCH_2}")
      if(NOT name MATCHES "_${isa}\\(")
        string(APPEND bad "  ${obj}: ${name}\n")
      endif()
    endif()
  endforeach()
endforeach()
if(checked EQUAL 0)
  message(FATAL_ERROR "no *_avx2 / *_avx512 objects among: ${OBJECTS}")
endif()
if(bad)
  message(FATAL_ERROR "per-ISA objects define code other objects can link to:\n${bad}")
endif()
message(STATUS "${checked} per-ISA objects define only their entry points")
