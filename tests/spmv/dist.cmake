# gs_dist / gs_dist_op: the distributed matrix operations (partitions, row fetches, the entry
# exchange, transpose, product, allgather, compact columns, the distributed SpMV with the
# selector's formats) against the one-process reference on the whole matrices; on one process,
# and on 3 and 4 MPI ranks (partitions with an empty block) when MPI was found.
gs_add_test(test_dist ${CMAKE_CURRENT_LIST_DIR}/test_dist.c LABEL cpu)
if(TARGET MPI::MPI_C)
  # CI runs as root, which OpenMPI refuses unless told; under ASan, what Open MPI keeps until
  # exit is suppressed (tests/mpi/lsan.supp, as the tests in tests/mpi do)
  set(GS_DIST_MPI_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
  if(GSOLVE_SANITIZE)
    string(APPEND GS_DIST_MPI_ENV
      ";ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0"
      ";LSAN_OPTIONS=suppressions=${CMAKE_SOURCE_DIR}/tests/mpi/lsan.supp:print_suppressions=0"
      ";OMPI_MCA_mca_base_component_disable_dlclose=1")
  endif()
  foreach(np 3 4)
    add_test(NAME test_dist_mpi${np}
             COMMAND ${MPIEXEC_EXECUTABLE} --oversubscribe -np ${np} $<TARGET_FILE:test_dist>)
    set_tests_properties(test_dist_mpi${np} PROPERTIES LABELS "cpu;mpi" TIMEOUT 120
                         ENVIRONMENT "${GS_DIST_MPI_ENV}")
  endforeach()
  if(GS_HAVE_CUDA) # the rank-to-rank exchange through device arrays (CUDA IPC on one node)
    foreach(np 2 3)
      add_test(NAME test_dist_gpu_mpi${np}
               COMMAND ${MPIEXEC_EXECUTABLE} --oversubscribe -np ${np} $<TARGET_FILE:test_dist> --gpu)
      set_tests_properties(test_dist_gpu_mpi${np} PROPERTIES LABELS "gpu;mpi" TIMEOUT 120
                           SKIP_RETURN_CODE 77 ENVIRONMENT "${GS_DIST_MPI_ENV}")
    endforeach()
  endif()
endif()
# gs_dist_ops (the distributed setup's data-parallel steps): the host table against references
# built in the test; the device table against the same in CUDA builds
gs_add_test(test_dist_ops ${CMAKE_CURRENT_LIST_DIR}/test_dist_ops.c LABEL cpu)
if(GS_HAVE_CUDA)
  gs_add_test(test_dist_ops_gpu ${CMAKE_CURRENT_LIST_DIR}/test_dist_ops.c LABEL gpu ARGS --gpu)
endif()
# gs_dist_ops, continued (helpers shared with test_dist_ops in
# test_dist_ops_util.h): the rows and columns ranks exchange (packing, scatter-add, offd_add,
# gather, rows to CSR, compact columns, sort_unique, map_cols, triplets to CSR); the host table
# against references built in the test, the device table against the same in CUDA builds
gs_add_test(test_dist_ops_rows ${CMAKE_CURRENT_LIST_DIR}/test_dist_ops_rows.c LABEL cpu)
if(GS_HAVE_CUDA)
  gs_add_test(test_dist_ops_rows_gpu ${CMAKE_CURRENT_LIST_DIR}/test_dist_ops_rows.c LABEL gpu
              ARGS --gpu)
endif()

