# Runs the sample on the bundled walk and figure (CI builds and runs every sample).
if(RK_BUILD_TESTS)
  add_test(NAME samples/retarget_clip
    COMMAND sample_retarget_clip ${PROJECT_SOURCE_DIR}/tests/data/makehuman_walk1.bvh
            ${PROJECT_SOURCE_DIR}/tests/data/RiggedFigure.glb ${CMAKE_CURRENT_BINARY_DIR}/walk_on_figure.glb)
  set_tests_properties(samples/retarget_clip PROPERTIES LABELS samples
    PASS_REGULAR_EXPRESSION "14 frames at 24 fps")
endif()
