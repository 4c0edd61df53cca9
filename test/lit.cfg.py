# -*- Python -*-
# lit configuration of the qfx regression tests.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "QFX"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.qfx_obj_root, "test")
# test/Inputs holds data that tests read. test/Unit holds C++ sources; lit
# runs its GoogleTest binaries as a nested
# suite found through build/test/Unit/lit.site.cfg.py.
config.excludes = ["Inputs", "CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py.in"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%qfx_src", config.qfx_src_root))
config.substitutions.append(("%qfx_obj", config.qfx_obj_root))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%clang_format", config.clang_format))
# `cmake --install` of this build into a directory, and a CMake configure of
# an out-of-tree project like this build's (compilers, linker, MLIR).
config.substitutions.append(("%cmake_install", f'"{config.cmake_command}" --install "{config.qfx_obj_root}" --prefix'))
config.substitutions.append(("%cmake_configure", " ".join([
    f'"{config.cmake_command}"', f'-G "{config.cmake_generator}"',
    f'-DCMAKE_MAKE_PROGRAM="{config.cmake_make_program}"',
    f'-DCMAKE_C_COMPILER="{config.cmake_c_compiler}"',
    f'-DCMAKE_CXX_COMPILER="{config.cmake_cxx_compiler}"',
    f'-DCMAKE_BUILD_TYPE="{config.cmake_build_type}"',
    f'-DLLVM_USE_LINKER="{config.llvm_use_linker}"',
    f'-DMLIR_DIR="{config.mlir_dir}"'])))
config.substitutions.append(("%cmake_build", f'"{config.cmake_command}" --build'))
# A C program linking an instrumented qfx library (libQFXCAPI.so) of a
# sanitizer build needs the sanitizer runtime itself.
config.substitutions.append(
    ("%qfx_sanitize_flags",
     "-fsanitize=address,undefined" if "Address" in config.llvm_use_sanitizer
     else "-fsanitize=thread" if "Thread" in config.llvm_use_sanitizer else ""))
# quant-compile's instrumentation for the same sanitizer, where it has one.
config.substitutions.append(
    ("%quant_compile_sanitize",
     "--sanitize=thread" if "Thread" in config.llvm_use_sanitizer else ""))
# qfx's mlir-opt plugin (lib/Plugin) and Debian's mlir-opt.
config.substitutions.append(
    ("%qfx_plugin", os.path.join(config.qfx_obj_root, "lib", "QFXPlugin.so")))
config.substitutions.append(
    ("%mlir_opt", os.path.join(config.llvm_tools_dir, "mlir-opt")))

# The ThreadSanitizer run (QFX_SANITIZE=thread utils/test.sh) loads libomp's
# TSan tool, libarcher, into the tools it starts.
llvm_config.with_system_environment(["OMP_TOOL_LIBRARIES"])

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(
    [ToolSubst(tool, unresolved="fatal")
     for tool in ("quant-compile", "quant-opt", "quant-run", "qfx-microkernels",
                  "qfx-npy-fuzzer",
                  "qfx-config-fuzzer", "qfx-ir-fuzzer")],
    [config.qfx_tools_dir],
)

# CPU features of this machine, for tests of native kernels (REQUIRES:).
try:
    with open("/proc/cpuinfo") as cpuinfo:
        flags = next((line.split(":", 1)[1].split() for line in cpuinfo
                      if line.startswith("flags")), [])
except OSError:
    flags = []
for feature in ("avx2", "avx512_vnni", "avx512bw", "amx_int8"):
    if feature in flags:
        config.available_features.add(feature.replace("_", ""))

# Tools that utils/setup.sh installs are required, not optional features: a
# test that needs one fails loudly instead of being skipped where it is
# missing. AArch64 code is cross-compiled and run under qemu user mode.
import shutil  # noqa: E402
for tool, package in (("qemu-aarch64", "qemu-user"),
                      ("aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu"),
                      ("valgrind", "valgrind")):
    if not shutil.which(tool):
        lit_config.fatal(f"{tool} is not on PATH: utils/setup.sh installs it "
                         f"(Debian package {package})")
