# solver/gs_batch and solver/gs_report: warmup runs left out of the statistics; the report's
# min / median / max, failed and crashed runs drawn as failed, setup and solve stacked, what
# produced each run, files of older versions read.
gs_add_test(test_batch_warmup ${CMAKE_CURRENT_LIST_DIR}/test_batch_warmup.c LABEL cpu TIMEOUT 120)
add_test(NAME cli_report_stats COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_report_stats.sh
         $<TARGET_FILE:gsolve> ${CMAKE_CURRENT_BINARY_DIR}/report_stats)
set_tests_properties(cli_report_stats PROPERTIES LABELS cpu TIMEOUT 180)
# the report over a whole batch, on result folders written by hand: the summary across cases
# and the speedup panel, runs expected and missing, settings kept apart, fallbacks named by what
# ran, the plotter's choices
add_test(NAME cli_report_summary COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_report_summary.sh
         $<TARGET_FILE:gsolve> ${CMAKE_CURRENT_BINARY_DIR}/report_summary)
set_tests_properties(cli_report_summary PROPERTIES LABELS cpu TIMEOUT 120)
