# io/gs_h5 tests: fixtures written by the test itself with the HDF5 C API.
gs_add_test(test_h5 ${CMAKE_CURRENT_LIST_DIR}/test_h5.c LABEL cpu)

# h5_h5py_example: the README's h5py lines (tests/data/h5py_write_example.py) write a file
# that gs_h5_read must read. Only when a Python 3 with h5py and scipy is found.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  execute_process(COMMAND ${Python3_EXECUTABLE} -c "import h5py, scipy"
                  RESULT_VARIABLE GS_H5PY_RESULT OUTPUT_QUIET ERROR_QUIET)
endif()
if(Python3_Interpreter_FOUND AND GS_H5PY_RESULT EQUAL 0)
  add_executable(test_h5_from_h5py ${CMAKE_CURRENT_LIST_DIR}/test_h5_from_h5py.c)
  target_link_libraries(test_h5_from_h5py PRIVATE gsolve_core)
  target_include_directories(test_h5_from_h5py PRIVATE ${CMAKE_SOURCE_DIR}/tests)
  add_test(NAME h5_h5py_example
           COMMAND sh -c "\"$1\" \"$2\" \"$3\" && \"$4\" \"$3\"" sh ${Python3_EXECUTABLE}
                   ${CMAKE_SOURCE_DIR}/tests/data/h5py_write_example.py
                   ${CMAKE_CURRENT_BINARY_DIR}/h5py_example.h5 $<TARGET_FILE:test_h5_from_h5py>)
  set_tests_properties(h5_h5py_example PROPERTIES LABELS cpu)
else()
  message(STATUS "gsolve: Python 3 with h5py and scipy not found: test h5_h5py_example is off")
endif()
