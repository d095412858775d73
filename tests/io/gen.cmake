# gs_gen: problem generators (grid stencils, dof blocks, power-law graphs), exact checks.
gs_add_test(test_gen ${CMAKE_CURRENT_SOURCE_DIR}/test_gen.c LABEL cpu)
