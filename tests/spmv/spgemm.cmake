# SpGEMM and Galerkin product (spmv/gs_spgemm.*): host reference; device DCSR and cuSPARSE in CUDA builds
gs_add_test(test_spgemm ${CMAKE_CURRENT_LIST_DIR}/test_spgemm.c)
if(GS_HAVE_CUDA)
  gs_add_test(test_spgemm_gpu ${CMAKE_CURRENT_LIST_DIR}/test_spgemm.c LABEL gpu ARGS --gpu TIMEOUT 600)
endif()
