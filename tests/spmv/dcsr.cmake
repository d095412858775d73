# DCSR (spmv/gs_dcsr.*): round trips, insertion, defragmentation, SpMV; host, and device in CUDA builds
gs_add_test(test_dcsr ${CMAKE_CURRENT_LIST_DIR}/test_dcsr.c)
if(GS_HAVE_CUDA)
  gs_add_test(test_dcsr_gpu ${CMAKE_CURRENT_LIST_DIR}/test_dcsr.c LABEL gpu ARGS --gpu)
endif()
