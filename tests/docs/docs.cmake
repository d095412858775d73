# README.md, LICENSE and CITATION.cff: what they promise holds (tests/docs/test_readme.sh).
add_test(NAME docs_readme COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_readme.sh
         ${CMAKE_SOURCE_DIR} $<TARGET_FILE:gsolve>)
set_tests_properties(docs_readme PROPERTIES LABELS cpu TIMEOUT 60)
