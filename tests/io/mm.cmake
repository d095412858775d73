# Matrix Market reader/writer tests (io/gs_mm.c).
gs_add_test(test_mm ${CMAKE_CURRENT_SOURCE_DIR}/test_mm.c LABEL cpu TIMEOUT 300)
