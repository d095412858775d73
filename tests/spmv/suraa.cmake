# SURAA (spmv/gs_suraa*.c/cu): the format harness with G1 through child grids and through one
# block per row, and SURAA's own order, segment, group and long-row checks
gs_add_test(test_suraa ${CMAKE_CURRENT_LIST_DIR}/test_suraa.c)
if(GS_HAVE_CUDA)
  gs_add_test(test_suraa_gpu ${CMAKE_CURRENT_LIST_DIR}/test_suraa.c LABEL gpu ARGS --gpu
              TIMEOUT 600)
endif()
