# Runs one MPI test (tests/mpi/CMakeLists.txt): cmake -DCOMMAND=<mpiexec ... separated by |> -P this.
# Passes when mpiexec exits 0, rank 0 printed "mpi_dealer_test: PASS" and no rank printed FAIL.
string(REPLACE "|" ";" command "${COMMAND}")
execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out TIMEOUT 110)
message("${out}")
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "mpiexec exited with '${rc}', expected 0")
endif()
if(out MATCHES "mpi_dealer_test: (rank [0-9]+ )?FAIL" OR NOT out MATCHES "mpi_dealer_test: PASS")
  message(FATAL_ERROR "rank 0 did not report PASS, or a rank reported FAIL")
endif()
