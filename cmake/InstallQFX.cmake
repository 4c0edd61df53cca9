# `cmake --install`: qfx's headers (with the generated .inc files), its
# libraries exported as QFX::<name> (QFXTargets.cmake), the package config
# that find_package(QFX CONFIG) reads, the tools and the mlir-opt plugin.
#
#   cmake --install build --prefix /opt/qfx
#   cmake -DQFX_DIR=/opt/qfx/lib/cmake/qfx ...   # in the embedding project

set(QFX_INSTALL_PACKAGE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/qfx")

install(DIRECTORY "${QFX_SOURCE_DIR}/include/qfx"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY "${QFX_SOURCE_DIR}/include/qfx-c"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(DIRECTORY "${QFX_BINARY_DIR}/include/qfx"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
  FILES_MATCHING PATTERN "*.inc"
  PATTERN "CMakeFiles" EXCLUDE)

get_property(qfx_exports GLOBAL PROPERTY QFX_EXPORTS)
install(TARGETS ${qfx_exports} EXPORT QFXTargets
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}")
install(EXPORT QFXTargets NAMESPACE QFX::
  DESTINATION "${QFX_INSTALL_PACKAGE_DIR}")
install(TARGETS quant-opt quant-run quant-compile
  RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")

include(CMakePackageConfigHelpers)
configure_package_config_file(
  "${QFX_SOURCE_DIR}/cmake/QFXConfig.cmake.in"
  "${QFX_BINARY_DIR}/cmake/QFXConfig.cmake"
  INSTALL_DESTINATION "${QFX_INSTALL_PACKAGE_DIR}"
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(
  "${QFX_BINARY_DIR}/cmake/QFXConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES
  "${QFX_BINARY_DIR}/cmake/QFXConfig.cmake"
  "${QFX_BINARY_DIR}/cmake/QFXConfigVersion.cmake"
  DESTINATION "${QFX_INSTALL_PACKAGE_DIR}")
