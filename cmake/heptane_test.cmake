# heptane_add_test(NAME name SOURCES a.cpp ... LIBS lib ... LABELS unit|gpu|regression ...)
# One GoogleTest executable per source; every TEST is registered as its own ctest test
# (gtest_discover_tests, discovered at test time so cross-builds need no run at build time).
include(GoogleTest)
find_package(GTest REQUIRED)

function(heptane_add_test)
  cmake_parse_arguments(T "" "NAME" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} heptane_test_common GTest::gtest GTest::gtest_main heptane_options)
  gtest_discover_tests(${T_NAME}
    DISCOVERY_MODE PRE_TEST
    DISCOVERY_TIMEOUT 60
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}
    # Several test processes share the cores: passive OpenMP threads do not spin against
    # each other (spinning made parallel ctest runs 50x slower on 2 cores).
    PROPERTIES LABELS "${T_LABELS}" ENVIRONMENT "OMP_WAIT_POLICY=PASSIVE")
endfunction()
