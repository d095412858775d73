# CMRS: the format harness (fmt_test.h) for h in {1, 3, 4, 8, 16} x sorted x modified, plus the
# packing on the paper's example, the modified layout's lane rule for every h, and the refusals.
gs_add_test(test_cmrs ${CMAKE_CURRENT_LIST_DIR}/test_cmrs.c)
# The device side is one test per strip height (h=N: that height's harness runs only; the checks
# that do not depend on it run with h=1), so that each stays within a compute-sanitizer run's
# time (scripts/gpu-sanitize.sh; racecheck over all heights at once took more than 9 minutes).
if(GS_HAVE_CUDA)
  gs_add_test(test_cmrs_gpu ${CMAKE_CURRENT_LIST_DIR}/test_cmrs.c LABEL gpu ARGS --gpu h=1
              TIMEOUT 900)
  foreach(h 3 4 8 16)
    gs_add_test(test_cmrs_gpu_h${h} ${CMAKE_CURRENT_LIST_DIR}/test_cmrs.c EXE test_cmrs_gpu
                LABEL gpu ARGS --gpu h=${h} TIMEOUT 900)
  endforeach()
endif()
