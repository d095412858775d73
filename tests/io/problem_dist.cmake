# gs_problem_dist: the problem loaded by rows (generators building each rank's rows, HDF5 CSR
# groups read by hyperslabs) against the whole problem scattered from rank 0, to the bit; on
# one process, and on 3 MPI ranks when MPI was found.
gs_add_test(test_problem_dist ${CMAKE_CURRENT_LIST_DIR}/test_problem_dist.c LABEL cpu
            ARGS ${CMAKE_SOURCE_DIR})
if(TARGET MPI::MPI_C)
  # CI runs as root, which OpenMPI refuses unless told; under ASan, what Open MPI keeps until
  # exit is suppressed (tests/mpi/lsan.supp, as the tests in tests/mpi do)
  set(GS_PDIST_MPI_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
  if(GSOLVE_SANITIZE)
    string(APPEND GS_PDIST_MPI_ENV
      ";ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0"
      ";LSAN_OPTIONS=suppressions=${CMAKE_SOURCE_DIR}/tests/mpi/lsan.supp:print_suppressions=0"
      ";OMPI_MCA_mca_base_component_disable_dlclose=1")
  endif()
  add_test(NAME test_problem_dist_mpi
           COMMAND ${MPIEXEC_EXECUTABLE} --oversubscribe -np 3 $<TARGET_FILE:test_problem_dist>
                   ${CMAKE_SOURCE_DIR})
  set_tests_properties(test_problem_dist_mpi PROPERTIES LABELS "cpu;mpi" TIMEOUT 120
                       ENVIRONMENT "${GS_PDIST_MPI_ENV}")
endif()
