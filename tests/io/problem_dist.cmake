# gs_problem_dist: the problem loaded by rows (generators building each rank's rows, HDF5 CSR
# groups read by hyperslabs) against the whole problem scattered from rank 0, to the bit; on
# one process, and on 3 MPI ranks when MPI was found.
gs_add_test(test_problem_dist ${CMAKE_CURRENT_LIST_DIR}/test_problem_dist.c LABEL cpu
            ARGS ${CMAKE_SOURCE_DIR})
if(TARGET MPI::MPI_C)
  add_test(NAME test_problem_dist_mpi
           COMMAND ${MPIEXEC_EXECUTABLE} --oversubscribe -np 3 $<TARGET_FILE:test_problem_dist>
                   ${CMAKE_SOURCE_DIR})
  # CI runs as root, which OpenMPI refuses unless told
  set_tests_properties(test_problem_dist_mpi PROPERTIES LABELS "cpu;mpi" TIMEOUT 120
                       ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
endif()
