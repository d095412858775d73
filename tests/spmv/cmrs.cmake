# CMRS: the format harness (fmt_test.h) for h in {1, 3, 4, 8, 16} x sorted x modified, plus the
# packing on the paper's example, the modified layout's lane rule for every h, and the refusals.
gs_add_test(test_cmrs ${CMAKE_CURRENT_LIST_DIR}/test_cmrs.c)
if(GS_HAVE_CUDA)
  gs_add_test(test_cmrs_gpu ${CMAKE_CURRENT_LIST_DIR}/test_cmrs.c LABEL gpu ARGS --gpu TIMEOUT 900)
endif()
