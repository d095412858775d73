# The AMG problem classes' generators (jumps, rotated, elasticity) through gsolve: their configs
# as they are, the keys in --help-config, configuration errors (exit 2, one line naming the key),
# the 32-bit limit, --export to hypre's IJ format, and the solves checked in C.
gs_cli_test(config_jumps 0 "converged \\(relative residual\\) after [0-9]+ iterations" ${CFG}/jumps.cfg)
gs_cli_test(config_rotated 0 "converged \\(relative residual\\) after [0-9]+ iterations" ${CFG}/rotated.cfg)
gs_cli_test(config_elasticity2d 0 "block 2, Chebyshev" ${CFG}/elasticity2d.cfg)
gs_cli_test(config_elasticity3d 0 "converged \\(relative residual\\) after [0-9]+ iterations" ${CFG}/elasticity3d.cfg)

gs_cli_test(help_config_types 0 "one of: poisson\\|anisotropic\\|convdiff\\|powerlaw\\|jumps\\|rotated\\|elasticity" --help-config)
gs_cli_test(help_config_contrast 0 "problem\\.generate\\.contrast +float +default 1000 +range: 1\\.\\.1e\\+150" --help-config)
gs_cli_test(help_config_block 0 "problem\\.generate\\.block +int +default 8 +range: 1\\.\\.2147483647" --help-config)
gs_cli_test(help_config_angle 0 "problem\\.generate\\.angle +float +default 22\\.5" --help-config)
gs_cli_test(help_config_E 0 "problem\\.generate\\.E +float +default 1 +range" --help-config)
gs_cli_test(help_config_nu 0 "problem\\.generate\\.nu +float +default 0\\.3 +range: -1\\.\\.0\\.5" --help-config)
gs_cli_test(help_config_uses 0 "jumps: grid points per edge of the cubes" --help-config)

set(JUMPS --set problem.generate.type=jumps --set problem.generate.size=8)
set(ELAS --set problem.generate.type=elasticity --set problem.generate.size=4)
gs_cli_test(cfg_contrast_below_1 2 "problem\\.generate\\.contrast = 0\\.5 is out of range 1\\.\\.1e\\+150" ${JUMPS} --set problem.generate.contrast=0.5)
gs_cli_test(cfg_contrast_file 2 "jumps_contrast\\.cfg:2: problem\\.generate\\.contrast = 0\\.5 is out of range" ${BAD}/jumps_contrast.cfg)
gs_cli_test(cfg_nu_half 2 "problem\\.generate\\.nu = 0\\.5: elasticity needs -1 < nu < 0\\.5" ${ELAS} --set problem.generate.nu=0.5)
gs_cli_test(cfg_nu_below 2 "problem\\.generate\\.nu = -1\\.5 is out of range -1\\.\\.0\\.5" ${ELAS} --set problem.generate.nu=-1.5)
gs_cli_test(cfg_elasticity_stencil 2 "problem\\.generate\\.stencil = 8: elasticity takes 5 or 9 \\(2D, Q1 quadrilaterals\\) or 7 or 27 \\(3D, Q1 hexahedra\\)" ${ELAS} --set problem.generate.stencil=8)
gs_cli_test(cfg_E_zero 2 "problem\\.generate\\.E = 0 is out of range" ${ELAS} --set problem.generate.E=0)
gs_cli_test(cfg_block_zero 2 "problem\\.generate\\.block = 0 is out of range 1\\.\\.2147483647" ${JUMPS} --set problem.generate.block=0)
gs_cli_test(gen_jumps_dof 2 "jumps: dof 2: dof applies to poisson, anisotropic and convdiff only" ${JUMPS} --set problem.generate.dof=2)
gs_cli_test(gen_rotated_ignores_stencil 0 "rotated 2D 9-point Q1 16\\^2 epsilon 0\\.001 angle 22\\.5" ${HOST}
  --set problem.generate.type=rotated --set problem.generate.size=16 --set problem.generate.stencil=27)
gs_cli_limit_test(limit_generate_jumps
  "jumps 3D 7-point 1291\\^3 contrast 1000 block 8 seed 1: 2\\.152e\\+09 rows: the 32-bit index limit is 2\\^31 - 1"
  ${HOST} ${JUMPS} --set problem.generate.size=1291)
gs_cli_limit_test(limit_generate_elasticity
  "elasticity 3D Q1 300\\^3 E 1 nu 0\\.3: 6\\.517e\\+09 nonzeros: the 32-bit index limit is 2\\^31 - 1"
  ${HOST} ${ELAS} --set problem.generate.size=300 --set problem.generate.stencil=7)

add_test(NAME cli_export_ij COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_export_ij.sh
  $<TARGET_FILE:gsolve> ${TMP}/export_ij)
set_tests_properties(cli_export_ij PROPERTIES LABELS cpu TIMEOUT 60)

gs_add_test(test_gen_solves test_gen_solves.c ARGS ${CFG} TIMEOUT 300)

# problem.generate.nx, ny, nz: grids that are not cubic (0: size); powerlaw refuses them, a 2D
# grid refuses nz (exit 2, one line naming the key); the 32-bit limit from their product
gs_cli_test(help_config_nx 0 "problem\\.generate\\.nx +int +default 0 +range: 0\\.\\.2147483647" --help-config problem.generate.nx)
gs_cli_test(help_config_nx_text 0 "grid points along x \\(0: problem\\.generate\\.size\\).*powerlaw refuses it" --help-config problem.generate.nx)
gs_cli_test(help_config_nz 0 "grid points along z \\(0: problem\\.generate\\.size\\), 3D grids only" --help-config problem.generate.nz)
set(NXYZ --set problem.generate.type=poisson --set problem.generate.size=5 --set problem.generate.nx=6
  --set problem.generate.nz=9)
gs_cli_test(gen_poisson_nxyz 0 "problem +poisson 3D 7-point 6x5x9$" ${HOST} ${NXYZ})
# N = 270, 7 N - 2 (ny nz + nx nz + nx ny) = 1890 - 258
gs_cli_test(gen_poisson_nxyz_nnz 0 "rows 270  cols 270  nnz 1632 " ${HOST} ${NXYZ})
gs_cli_test(gen_jumps_nxyz 0 "problem +jumps 3D 7-point 4x6x5 contrast 1000 block 8 seed 1$" ${HOST} ${JUMPS}
  --set problem.generate.nx=4 --set problem.generate.ny=6 --set problem.generate.nz=5)
gs_cli_test(gen_cubic_nxyz 0 "poisson 3D 7-point 5\\^3" ${HOST}
  --set problem.generate.type=poisson --set problem.generate.size=5 --set problem.generate.nz=5)
gs_cli_test(cfg_powerlaw_nx 2 "problem\\.generate\\.nx = 5: powerlaw is a graph of problem\\.generate\\.size nodes, not a grid"
  --set problem.generate.type=powerlaw --set problem.generate.nx=5)
gs_cli_test(cfg_2d_nz 2 "problem\\.generate\\.nz = 3: poisson with stencil 5 is 2D \\(nx, ny only\\)"
  --set problem.generate.type=poisson --set problem.generate.stencil=5 --set problem.generate.nz=3)
gs_cli_test(cfg_rotated_nz 2 "problem\\.generate\\.nz = 3: rotated is 2D"
  --set problem.generate.type=rotated --set problem.generate.nz=3)
gs_cli_test(cfg_nx_negative 2 "problem\\.generate\\.nx = -1 is out of range 0\\.\\.2147483647"
  --set problem.generate.type=poisson --set problem.generate.nx=-1)
gs_cli_limit_test(limit_generate_nxyz
  "poisson 3D 7-point 2048x1024x1024: 2\\.147e\\+09 rows: the 32-bit index limit is 2\\^31 - 1"
  ${HOST} --set problem.generate.type=poisson --set problem.generate.size=1024 --set problem.generate.nx=2048)
