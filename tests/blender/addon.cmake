# The add-on in headless Blender (plugin/blender, tests/blender/test_addon.{c,py} and
# test_operators.py, sharing addon_common.py): label
# "blender", skipped with a message when blender is missing. Included by this directory's
# CMakeLists.txt.
get_property(RK_ADDON_ZIP GLOBAL PROPERTY RK_BLENDER_ADDON_ZIP)
if(RK_ADDON_ZIP AND TARGET rigkit_importers_static)
  add_executable(test_addon ${CMAKE_CURRENT_LIST_DIR}/test_addon.c)
  target_link_libraries(test_addon PRIVATE rk_test_support rigkit_importers_static
    PkgConfig::JSONGLIB)
  target_compile_definitions(test_addon PRIVATE RK_ADDON_ZIP="${RK_ADDON_ZIP}"
    RK_ADDON_SCRIPT="${CMAKE_CURRENT_LIST_DIR}/test_addon.py"
    RK_ADDON_OPERATORS_SCRIPT="${CMAKE_CURRENT_LIST_DIR}/test_operators.py")
  add_dependencies(test_addon blender-addon)
  add_test(NAME blender/test_addon COMMAND test_addon --jobs 1)
  set_tests_properties(blender/test_addon PROPERTIES LABELS blender TIMEOUT 1200)
endif()
