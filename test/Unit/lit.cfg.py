# -*- Python -*-
# lit configuration of qfx's GoogleTest suites: every executable named
# *Tests under the build tree's test/Unit is run, one lit test per TEST().

import os

import lit.formats

config.name = "QFX-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.qfx_obj_root, "test", "Unit")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
# Golden data generated from PyTorch lives beside the test sources.
config.environment["QFX_TEST_DATA_DIR"] = os.path.join(
    config.qfx_src_root, "test", "Unit"
)
