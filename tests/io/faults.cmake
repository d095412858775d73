# Inputs at the 32-bit limits (under an allocation cap), NaN/Inf in A, b, x0, x, and the
# regressions found by tests/fuzz.
gs_add_test(test_io_faults ${CMAKE_CURRENT_LIST_DIR}/test_io_faults.c LABEL cpu)
