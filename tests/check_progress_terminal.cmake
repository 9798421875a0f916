# cmake -DEXE=<vkstark> -DSCRIPT=<util-linux script> -DDIR=<scratch dir> -P check_progress_terminal.cmake
#
# `vkstark prove` in a pseudo-terminal (`script -qec CMD /dev/null`), its transcript kept in
# DIR/transcript.txt:
# - while the CPU executor proves, a status line is rewritten in place ("\r" ... ESC[K) naming the
#   running span with OpenVM's names and the step's elapsed time, e.g.
#   "  prove > prover.rap_constraints > mle_rounds  [####......] 120/282  1.3 s";
# - no status line is wider than the terminal (80 columns when script has none to copy);
# - the finished lines come in the order of the proof: the steps, then the proof's spans as a tree,
#   parents before children;
# - the status line is gone before the results on stdout (they start on a clean line, and nothing
#   is drawn after the last step);
# - and with --quiet, the same terminal gets the results only.
file(REMOVE_RECURSE "${DIR}")
file(MAKE_DIRECTORY "${DIR}")
string(ASCII 27 esc)

function(run_in_terminal out_var)
  string(JOIN " " command "'${EXE}'" ${ARGN})
  execute_process(COMMAND "${SCRIPT}" -qec "${command}" /dev/null INPUT_FILE /dev/null RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
  if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "script -qec \"${command}\": exit status '${rc}', expected 0\n${out}\n${err}")
  endif()
  # The terminal ends its lines with \r\n.
  string(REPLACE "\r\n" "\n" out "${out}")
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

run_in_terminal(raw prove --air fibonacci --rows 262144 --log-stacked-height 18 --executor cpu
                --out "'${DIR}/fibonacci.vkp'")
file(WRITE "${DIR}/transcript.txt" "${raw}")
set(where "(transcript: ${DIR}/transcript.txt)")

# The running phase.
if(NOT raw MATCHES "\r  prove > prover\\.[a-z_]+( > [a-z_0-9.]+)*  \\[[#.]+\\] [0-9]+/[0-9]+  [0-9]+\\.[0-9] s${esc}\\[K")
  message(FATAL_ERROR "no status line naming a running span of the proof ${where}:\n${raw}")
endif()
# (as a CMake list: without brackets, which would group its elements, nor semicolons)
string(REPLACE "${esc}[K" "<EL>" lines "${raw}")
string(REGEX REPLACE "[][;]" "_" lines "${lines}")
string(REGEX MATCHALL "\r[^\r\n]*<EL>" drawn "${lines}")
list(LENGTH drawn n_drawn)
foreach(line IN LISTS drawn)
  string(REGEX REPLACE "^\r|<EL>$" "" text "${line}")
  string(LENGTH "${text}" width)
  if(width GREATER 79)
    message(FATAL_ERROR "a status line of ${width} columns, wider than the terminal ${where}:\n${text}")
  endif()
endforeach()

# What stays on the screen: each line's text after its last "\r", without ESC[K.
string(REPLACE "${esc}[K" "" screen "${raw}")
string(REGEX REPLACE "[^\n]*\r" "" screen "${screen}")
set(expected
    "vkstark prove: fibonacci on cpu"
    "\n  trace generation: "
    "\n  keygen: "
    "\n  prepare (graph, kernels, pipelines): "
    "\n  stark_prove_excluding_trace: "
    "\n    prover.main_trace_commit: "
    "\n      stacked_commit: "
    "\n    prover.rap_constraints: "
    "\n      logup_gkr: "
    "\n      round0: "
    "\n      mle_rounds: "
    "\n      column_openings: "
    "\n    prover.openings: "
    "\n      stacked_reduction: "
    "\n      whir: "
    "\n  verification: "
    "\nproved Fibonacci")
set(rest "${screen}")
foreach(line IN LISTS expected)
  string(FIND "${rest}" "${line}" at)
  if(at LESS 0)
    string(REPLACE "\n" "" shown "${line}")
    message(FATAL_ERROR "'${shown}' missing or out of the proof's order ${where}; the screen:\n${screen}")
  endif()
  string(SUBSTRING "${rest}" ${at} -1 rest)
endforeach()

# The ticker stopped before the results: nothing drawn after the last step's finished line, and
# the results on lines of their own.
string(FIND "${raw}" "  verification: " last_step)
string(SUBSTRING "${raw}" ${last_step} -1 after)
if(after MATCHES "${esc}\\[K")
  message(FATAL_ERROR "a status line drawn after the last step ${where}:\n${after}")
endif()
if(NOT raw MATCHES "\nproved Fibonacci[^\r\n]*\nwrote ")
  message(FATAL_ERROR "the results do not start on clean lines ${where}")
endif()

# --quiet: the results only, even in a terminal.
run_in_terminal(quiet prove --air fibonacci --rows 64 --params test --executor cpu --quiet
                --out "'${DIR}/quiet.vkp'")
if(quiet MATCHES "[\r]|${esc}|  keygen" OR NOT quiet MATCHES "^proved Fibonacci")
  message(FATAL_ERROR "vkstark prove --quiet in a terminal printed more than its results:\n${quiet}")
endif()
message(STATUS "${n_drawn} status lines drawn; the screen:\n${screen}")
