# host_retarget: a C host that only includes rigkit/plugin.h and dlopens librigkit_plugin.so
# (found through this program's RUNPATH, the build's lib directory). tests/plugin runs it.
if(TARGET rigkit_plugin)
  target_include_directories(sample_host_retarget PRIVATE ${PROJECT_SOURCE_DIR}/plugin/abi/include)
  target_compile_definitions(sample_host_retarget PRIVATE
    RK_SAMPLE_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data")
  target_link_libraries(sample_host_retarget PRIVATE ${CMAKE_DL_LIBS})
  set_target_properties(sample_host_retarget PROPERTIES BUILD_RPATH ${CMAKE_LIBRARY_OUTPUT_DIRECTORY})
  add_dependencies(sample_host_retarget rigkit_plugin)
else()
  set_target_properties(sample_host_retarget PROPERTIES EXCLUDE_FROM_ALL ON)
endif()
