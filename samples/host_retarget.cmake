# host_retarget: a C host that only includes rigkit/plugin.h and dlopens librigkit_plugin.so (the
# build's, by full path: under AddressSanitizer dlopen is called from libasan, so this program's
# RUNPATH would not be searched for a bare name). ctest runs it (samples/host_retarget and
# tests/plugin/test_plugin_abi_sample.c, which also checks its output).
if(TARGET rigkit_plugin)
  target_include_directories(sample_host_retarget PRIVATE ${PROJECT_SOURCE_DIR}/plugin/abi/include)
  target_compile_definitions(sample_host_retarget PRIVATE
    RK_SAMPLE_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data"
    RK_SAMPLE_PLUGIN="$<TARGET_FILE:rigkit_plugin>")
  target_link_libraries(sample_host_retarget PRIVATE ${CMAKE_DL_LIBS})
  add_dependencies(sample_host_retarget rigkit_plugin)
  if(RK_BUILD_TESTS)
    add_test(NAME samples/host_retarget COMMAND sample_host_retarget)
    set_tests_properties(samples/host_retarget PROPERTIES LABELS samples
      PASS_REGULAR_EXPRESSION "retargeted: 14 frames at 24 fps")
  endif()
else()
  set_target_properties(sample_host_retarget PROPERTIES EXCLUDE_FROM_ALL ON)
endif()
