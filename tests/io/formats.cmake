# Formats users hand over: scipy.sparse save_npz files, .npy vectors of any float or integer
# dtype, hypre's IJ files (--export FILE.ij and back); --inspect's symmetry and vectors. The
# files are made by tests/data/formats/make_formats.py (NumPy and scipy) and committed.
set(GS_FORMATS ${GS_TEST_DATA}/formats)
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/formats_tmp)
gs_add_test(test_formats ${CMAKE_CURRENT_LIST_DIR}/test_formats.c LABEL cpu
  ARGS ${GS_FORMATS} ${CMAKE_CURRENT_BINARY_DIR}/formats_tmp)
add_test(NAME cli_formats COMMAND bash ${CMAKE_SOURCE_DIR}/tests/cli/test_formats.sh
  $<TARGET_FILE:gsolve> ${GS_FORMATS} ${CMAKE_CURRENT_BINARY_DIR}/cli_formats)
set_tests_properties(cli_formats PROPERTIES LABELS cpu TIMEOUT 120)
