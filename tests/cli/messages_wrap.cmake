# a format's refusal said in full: the warning, the why line, the AMG level table wrapped
add_test(NAME cli_messages_wrap COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_wrap.sh
  $<TARGET_FILE:gsolve> ${CMAKE_SOURCE_DIR}/configs/data ${TMP}/messages_wrap)
set_tests_properties(cli_messages_wrap PROPERTIES LABELS cpu TIMEOUT 60)
