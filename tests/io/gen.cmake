# gs_gen: problem generators (grid stencils, dof blocks, power-law graphs), exact checks.
gs_add_test(test_gen ${CMAKE_CURRENT_SOURCE_DIR}/test_gen.c LABEL cpu)
# gs_gen_pde: jumps, rotated, elasticity: entries against the formulas, rigid-body modes.
gs_add_test(test_gen_pde ${CMAKE_CURRENT_SOURCE_DIR}/test_gen_pde.c LABEL cpu)
