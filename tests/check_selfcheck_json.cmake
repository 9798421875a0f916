# cmake -DSELFCHECK=<selfcheck> -DJSON=<file> -P check_selfcheck_json.cmake
#
# `selfcheck --executor cpu --json FILE` must pass and write its checks as JSON: {"executor": "cpu",
# "device", "checks": [{"name", "ok": true}...]}.
file(REMOVE "${JSON}")
execute_process(COMMAND "${SELFCHECK}" --executor cpu --json "${JSON}" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "selfcheck failed (${rc}):\n${out}")
endif()
if(NOT EXISTS "${JSON}")
  message(FATAL_ERROR "selfcheck --json ${JSON} wrote no file:\n${out}")
endif()
file(READ "${JSON}" json)
string(JSON executor ERROR_VARIABLE error GET "${json}" executor)
string(JSON checks ERROR_VARIABLE error2 LENGTH "${json}" checks)
if(error OR error2 OR NOT executor STREQUAL "cpu" OR checks LESS 1)
  message(FATAL_ERROR "${JSON} is not selfcheck's JSON (${error} ${error2}):\n${json}")
endif()
math(EXPR last "${checks} - 1")
foreach(i RANGE ${last})
  string(JSON ok GET "${json}" checks ${i} ok)
  if(NOT ok)
    message(FATAL_ERROR "${JSON}: check ${i} not ok:\n${json}")
  endif()
endforeach()
message(STATUS "${JSON}: ${checks} checks, all ok")
