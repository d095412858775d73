# Matrix features and the per-level format choice (gs_select.h): host, and device features
# against the host ones plus the device choices (label gpu)
gs_add_test(test_select ${CMAKE_CURRENT_LIST_DIR}/test_select.c)
if(GS_HAVE_CUDA)
  gs_add_test(test_select_gpu ${CMAKE_CURRENT_LIST_DIR}/test_select.c LABEL gpu ARGS --gpu
              TIMEOUT 600)
endif()
