# Inputs users have: MATLAB v7.3 files (the sparse matrix found without problem.group, its
# variables as b, x0 and the near-nullspace), HDF5 datasets and NumPy .npy files for
# problem.rhs, problem.x0 and problem.nullspace. The files are made by
# tests/data/inputs/make_inputs.py (h5py and NumPy, written the way MATLAB writes them) and
# committed; where h5py is found they are also made afresh and checked.
set(GS_INPUTS ${GS_TEST_DATA}/inputs)
gs_add_test(test_inputs ${CMAKE_CURRENT_LIST_DIR}/test_inputs.c LABEL cpu ARGS ${GS_INPUTS})

find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  execute_process(COMMAND ${Python3_EXECUTABLE} -c "import h5py, numpy"
                  RESULT_VARIABLE GS_H5PY_NUMPY OUTPUT_QUIET ERROR_QUIET)
endif()
if(Python3_Interpreter_FOUND AND GS_H5PY_NUMPY EQUAL 0)
  set(fresh ${CMAKE_CURRENT_BINARY_DIR}/inputs_fresh)
  add_test(NAME inputs_regenerated COMMAND sh -c
    "rm -rf \"$3\" && mkdir -p \"$3\" && \"$1\" \"$2\" \"$3\" && \"$4\" \"$3\"" sh
    ${Python3_EXECUTABLE} ${GS_INPUTS}/make_inputs.py ${fresh} $<TARGET_FILE:test_inputs>)
  set_tests_properties(inputs_regenerated PROPERTIES LABELS cpu)
else()
  message(STATUS "gsolve: Python 3 with h5py and numpy not found: test inputs_regenerated is off")
endif()

# gsolve itself: the group found and said, a MATLAB variable as b, the errors in one line
set(EXPECT ${CMAKE_SOURCE_DIR}/tests/cli/expect.sh)
function(gs_input_test name code regex)
  add_test(NAME cli_${name} COMMAND ${EXPECT} ${code} ${regex} $<TARGET_FILE:gsolve>
           --set run.backend=host ${ARGN})
  set_tests_properties(cli_${name} PROPERTIES LABELS cpu)
endfunction()
gs_input_test(matlab_found 0 "^problem +.*/matlab.mat:/A$"
  --set problem.matrix=${GS_INPUTS}/matlab.mat)
gs_input_test(matlab_variables 0 "rhs file \\(dataset b\\)  x0 file \\(dataset x0\\)"
  --set problem.matrix=${GS_INPUTS}/matlab.mat)
gs_input_test(matlab_rhs 0 "rhs dataset /b  x0 file \\(.npy\\)"
  --set problem.matrix=${GS_INPUTS}/matlab.mat --set problem.rhs=${GS_INPUTS}/matlab.mat:/b
  --set problem.x0=${GS_INPUTS}/b.npy)
gs_input_test(matlab_two 2 "two.mat holds 2 sparse matrices \\(/A, /K\\): choose one"
  --set problem.matrix=${GS_INPUTS}/two.mat)
gs_input_test(npy_dtype 0 "rhs file \\(.npy\\)"
  --set problem.matrix=${GS_INPUTS}/matlab.mat --set problem.rhs=${GS_INPUTS}/f32.npy)
gs_input_test(h5_rhs_no_dataset 2 "is an HDF5 file: name its dataset, as in .*matlab.mat:/b"
  --set problem.matrix=${GS_INPUTS}/matlab.mat --set problem.rhs=${GS_INPUTS}/matlab.mat)
gs_input_test(matlab_nullspace 0 "converged \\(relative residual\\)"
  --set problem.matrix=${GS_INPUTS}/matlab.mat --set problem.nullspace=${GS_INPUTS}/matlab.mat:/B
  --set solver.preconditioner=amg)
gs_input_test(npy_nullspace 0 "converged \\(relative residual\\)"
  --set problem.matrix=${GS_INPUTS}/matlab.mat --set problem.nullspace=${GS_INPUTS}/B_f.npy
  --set solver.preconditioner=amg)
gs_input_test(h5_group_in_path 0 "^problem +.*/two.mat:/K$"
  --set problem.matrix=${GS_INPUTS}/two.mat:/K)
