# CDS (Godwin et al.): the format harness plus CDS-specific checks, host and device
gs_add_test(test_cds ${CMAKE_CURRENT_LIST_DIR}/test_cds.c)
if(GS_HAVE_CUDA)
  gs_add_test(test_cds_gpu ${CMAKE_CURRENT_LIST_DIR}/test_cds.c LABEL gpu ARGS --gpu)
endif()
