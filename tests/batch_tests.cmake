# Tests of the manifest, trace files and batches (included from tests/CMakeLists.txt).

# The manifest and trace folders (product/batch/manifest.hpp) and trace files (product/trace_file.hpp):
# hostile input, every error naming the line or the field. Named batch.<suite>.<test>.
vkstark_test(unit/manifest_test.cpp LABELS unit PREFIX batch.)
vkstark_test(unit/trace_file_test.cpp LABELS unit PREFIX batch.)
target_link_libraries(manifest_test PRIVATE GTest::gmock)
target_link_libraries(trace_file_test PRIVATE GTest::gmock)
target_sources(trace_file_test PRIVATE support/largest_allocation.cpp)
