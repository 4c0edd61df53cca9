# qfx's libraries are MLIR libraries that `cmake --install` installs into
# qfx's own export set (QFXTargets, imported as QFX::<name> by
# find_package(QFX CONFIG)), not into MLIR's.

# Registers the library target `name` for installation and export.
function(qfx_export_library name)
  target_include_directories(${name} INTERFACE
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  set_property(GLOBAL APPEND PROPERTY QFX_EXPORTS ${name})
endfunction()

# add_mlir_library's arguments; the library is installed and exported.
function(add_qfx_library name)
  add_mlir_library(${name} ${ARGN} DISABLE_INSTALL)
  qfx_export_library(${name})
endfunction()
