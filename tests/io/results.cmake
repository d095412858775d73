# io/gs_results tests: what produced a run (rtol, ..., version, commit, timestamp) in the CSV
# row and the HDF5 record; rows appended to a file begun with an older header.
gs_add_test(test_results_context ${CMAKE_CURRENT_LIST_DIR}/test_results_context.c LABEL cpu)
