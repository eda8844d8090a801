# Runs the sample on the bundled KUKA iiwa 14 table with a reachable goal.
if(RK_BUILD_TESTS)
  add_test(NAME samples/robot_ik COMMAND sample_robot_ik ${PROJECT_SOURCE_DIR}/tests/data/iiwa14.dh 0.3 0.5 0.2)
  set_tests_properties(samples/robot_ik PROPERTIES LABELS samples PASS_REGULAR_EXPRESSION "^reached")
endif()
