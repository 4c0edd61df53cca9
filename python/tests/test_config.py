"""Tests of qfx's PyTorch-style configuration API (qfx.config).

The presets are compared with lib/Config's own (a small C++ program,
fixtures/dump_config.cpp, compiled against the build's QFXConfiguration library) and
with PyTorch 1.13's objects through from_torch; the JSON is fed to quant-opt.
"""

import json
import os
import pathlib
import shutil
import subprocess
import warnings

import pytest

import qfx
from qfx import (
    BackendConfig,
    BackendPatternConfig,
    DTypeConfig,
    DTypeWithConstraints,
    FixedQParamsObserver,
    HistogramObserver,
    MinMaxObserver,
    MovingAverageMinMaxObserver,
    MovingAveragePerChannelMinMaxObserver,
    NoopObserver,
    ObservationType,
    ObserverSpec,
    PerChannelMinMaxObserver,
    PlaceholderObserver,
    QConfig,
    QConfigMapping,
    ReuseInputObserver,
)

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "docs" / "example" / "mlp.mlir"
FIXTURES = pathlib.Path(__file__).resolve().parent / "fixtures"
BACKENDS = ["x86", "fbgemm", "qnnpack", "onednn"]


# --- the C++ presets ---------------------------------------------------------


# The sanitizer builds' libraries need the sanitizer runtimes (utils/test.sh).
SANITIZER_FLAGS = {"1": ["-fsanitize=address,undefined", "-fsanitize=fuzzer-no-link"],
                   "thread": ["-fsanitize=thread"]}.get(os.environ.get("QFX_SANITIZE"), [])


@pytest.fixture(scope="session")
def cpp_config(tmp_path_factory):
    """Runs fixtures/dump_config.cpp, built against the build tree's (or
    the installed) QFXConfiguration library, and returns its JSON output."""
    build = pathlib.Path(os.environ.get("QFX_BUILD_DIR", REPO / "build"))
    libs = [build / "lib" / "Config" / "libQFXConfiguration.a",
            build / "lib" / "Numerics" / "libQFXNumerics.a"]
    includes = [REPO / "include", build / "include"]
    if "QFX_TEST_INSTALLED" in os.environ:  # the installed libraries and headers
        prefix = pathlib.Path(os.environ["QFX_TEST_INSTALLED"]) / "prefix"
        libs = [prefix / "lib" / lib.name for lib in libs]
        includes = [prefix / "include"]
    compiler = shutil.which("clang++-22") or shutil.which("clang++")
    assert compiler, "clang++-22 is needed to build the C++ preset dumper"
    for lib in libs:
        assert lib.is_file(), f"{lib} is missing: build qfx first"
    exe = tmp_path_factory.mktemp("dump_config") / "dump_config"
    subprocess.run(
        [compiler, "-std=c++17", *[f"-I{path}" for path in includes],
         "-I/usr/lib/llvm-22/include", str(FIXTURES / "dump_config.cpp"), *map(str, libs),
         "-L/usr/lib/llvm-22/lib", "-lLLVM", "-Wl,-rpath,/usr/lib/llvm-22/lib",
         "-fuse-ld=lld", "-o", str(exe), *SANITIZER_FLAGS],
        check=True, capture_output=True, text=True)

    def dump(kind, name):
        result = subprocess.run([str(exe), kind, str(name)], capture_output=True, text=True)
        if result.returncode != 0:
            raise ValueError(result.stderr.strip())
        return json.loads(result.stdout)

    return dump


@pytest.mark.parametrize("name", qfx.BACKEND_CONFIG_NAMES)
def test_backend_tables_equal_the_cpp_tables(cpp_config, name):
    # The Python tables are the library's (through the C API), and read back
    # unchanged.
    assert qfx.get_backend_config(name).to_dict() == cpp_config("backend", name)


# The golden table each built-in table translates; 1.13 has no onednn table
# and prepare_fx uses the native one.
GOLDEN_TABLES = {"x86": "x86", "fbgemm": "fbgemm", "qnnpack": "qnnpack", "onednn": "native"}


@pytest.mark.parametrize("name", sorted(GOLDEN_TABLES))
def test_backend_tables_are_pytorchs_over_tosa_patterns(name):
    """lib/Config's hand-written x86, fbgemm, qnnpack and onednn tables are
    PyTorch 1.13's own (its get_*_backend_config, dumped in the golden data)
    carried over the torch -> TOSA correspondence."""
    from qfx.config import _golden
    from qfx.config.backend_config import torch_patterns_to_tosa

    data = _golden.load("backend_configs.json")
    torch_configs = []
    for c in data[GOLDEN_TABLES[name]]:
        config = {k: v for k, v in c.items() if k != "pattern"}
        config["dtype_configs"] = [data["dtype_configs"][i] for i in c["dtype_configs"]]
        torch_configs.append((tuple(c["pattern"]), config))
    golden = torch_patterns_to_tosa(name, torch_configs)
    assert qfx.get_backend_config(name).to_dict() == golden.to_dict()


@pytest.mark.parametrize("backend", BACKENDS)
def test_default_mappings_and_qconfigs_equal_the_cpp_presets(cpp_config, backend):
    assert qfx.get_default_qconfig_mapping(backend).to_dict() == cpp_config("mapping", backend)
    assert qfx.get_default_qconfig(backend).to_dict() == cpp_config("default-qconfig", backend)


@pytest.mark.parametrize("name", qfx.QCONFIG_PRESET_NAMES)
def test_qconfig_presets_equal_the_cpp_presets(cpp_config, name):
    assert getattr(qfx, name).to_dict() == cpp_config("qconfig", name)


def _custom_mapping():
    qint8_act = HistogramObserver.with_args(dtype=qfx.qint8, eps=2**-12)
    sym_weight = MinMaxObserver.with_args(dtype="qint8", qscheme=qfx.per_tensor_symmetric,
                                          quant_min=-127, quant_max=127)
    return (
        QConfigMapping()
        .set_global(qfx.default_per_channel_symmetric_qnnpack_qconfig)
        .set_object_type("tosa.sigmoid", None)
        .set_object_type("torch.nn.Linear", QConfig(activation=qint8_act, weight=sym_weight))
        .set_module_name_regex(r"encoder\.layer\d+\.attn", None)
        .set_module_name_regex(r"head.*", QConfig(
            MovingAverageMinMaxObserver.with_args(averaging_constant=0.5),
            MovingAveragePerChannelMinMaxObserver.with_args(
                dtype="qint8", qscheme="per_channel_symmetric", ch_axis=1)))
        .set_module_name("decoder", qfx.default_symmetric_qnnpack_qconfig)
        .set_module_name("decoder.up1", QConfig(PlaceholderObserver.with_args(
            dtype="float16", compute_dtype="float16"), NoopObserver))
        .set_module_name_object_type_order("decoder", "tosa.conv2d", 0, None)
        .set_module_name_object_type_order("", "torch.add", 2, QConfig(
            FixedQParamsObserver.with_args(scale=1 / 256, zero_point=0, dtype="quint8",
                                           quant_min=0, quant_max=255),
            PerChannelMinMaxObserver.with_args(dtype="qint8",
                                               qscheme="per_channel_symmetric")))
        .set_object_type("reshape", QConfig(ReuseInputObserver, NoopObserver))
        # Setting a key again replaces it in place.
        .set_module_name_regex(r"encoder\.layer\d+\.attn", qfx.default_qconfig)
    )


def _custom_backend():
    return (
        BackendConfig("custom")
        .set_backend_pattern_config(
            BackendPatternConfig(["tosa.conv2d", "tosa.clamp"])
            .add_dtype_config(DTypeConfig(
                input_dtype=DTypeWithConstraints("qint8", scale_min_lower_bound=2**-12),
                output_dtype="qint8",
                weight_dtype=DTypeWithConstraints(dtype="qint8", quant_min_lower_bound=-127,
                                                  quant_max_upper_bound=127),
                bias_dtype="float32"))
            .set_root_op("tosa.conv2d")
            .set_fused_op("conv2d_relu")
            .set_fuser("sequence")
            .set_reference_lowering("contraction")
            .set_input_roles({"weight": (0, 1), "bias": (0, 2)}))
        .set_backend_pattern_config(
            BackendPatternConfig("tosa.add")
            .set_dtype_configs([DTypeConfig("quint8", "quint8"),
                                DTypeConfig("quint8", "float32", "qint8", "float32", True)])
            .set_num_tensor_args_to_observation_type({
                0: ObservationType.OUTPUT_USE_DIFFERENT_OBSERVER_AS_INPUT,
                1: "output_share_observer_with_input",
                2: ObservationType.OUTPUT_USE_DIFFERENT_OBSERVER_AS_INPUT}))
        .set_backend_pattern_config(
            BackendPatternConfig("tosa.sigmoid")
            .add_dtype_config(DTypeConfig("quint8", "quint8"))
            .set_overwrite_output_observer(FixedQParamsObserver.with_args(
                scale=1 / 256, zero_point=0)))
        .set_backend_pattern_config(
            BackendPatternConfig("tosa.reshape")
            .set_observation_type(ObservationType.OUTPUT_SHARE_OBSERVER_WITH_INPUT)
            .add_dtype_config(DTypeConfig("quint8", "quint8")))
    )


def test_custom_configs_read_by_the_cpp_reader_write_back_the_same(cpp_config, tmp_path):
    mapping, backend = _custom_mapping(), _custom_backend()
    mapping.save(tmp_path / "mapping.json")
    backend.save(tmp_path / "backend.json")
    assert cpp_config("read-mapping", tmp_path / "mapping.json") == mapping.to_dict()
    assert cpp_config("read-backend", tmp_path / "backend.json") == backend.to_dict()


# --- JSON round trips ----------------------------------------------------------


def test_mapping_round_trips_through_json():
    mapping = _custom_mapping()
    d = mapping.to_dict()
    assert list(d) == ["", "object_type", "module_name_regex", "module_name",
                       "module_name_object_type_order"]
    # The regex set twice keeps its first position with the new QConfig.
    assert d["module_name_regex"][0] == [r"encoder\.layer\d+\.attn",
                                         qfx.default_qconfig.to_dict()]
    assert d["object_type"][0] == ["tosa.sigmoid", None]
    again = QConfigMapping.from_json(mapping.to_json())
    assert again == mapping
    assert again.to_dict() == d
    assert json.loads(mapping.to_json()) == d
    # PyTorch's to_dict() style, with tuples, reads the same.
    assert QConfigMapping.from_dict({k: [tuple(e) for e in v] if k else v
                                     for k, v in d.items()}) == mapping


@pytest.mark.parametrize("backend", BACKENDS)
def test_presets_round_trip_through_json(backend):
    mapping = qfx.get_default_qconfig_mapping(backend)
    assert QConfigMapping.from_json(mapping.to_json()) == mapping
    assert QConfigMapping.from_dict(f"default:{backend}") == mapping
    table = qfx.get_backend_config(backend)
    assert BackendConfig.from_json(table.to_json()) == table
    assert BackendConfig.from_dict(backend) == table


def test_backend_config_round_trips_through_json():
    backend = _custom_backend()
    d = backend.to_dict()
    assert d["configs"][0]["pattern"] == ["tosa.conv2d", "tosa.clamp"]
    assert d["configs"][1]["pattern"] == "tosa.add"
    assert d["configs"][0]["dtype_configs"][0]["weight_dtype"] == {
        "dtype": "qint8", "quant_min_lower_bound": -127, "quant_max_upper_bound": 127}
    assert BackendConfig.from_json(backend.to_json()) == backend


def test_qconfig_preset_names_and_observer_arguments():
    assert QConfig.from_dict("default_qconfig") == qfx.default_qconfig
    assert qfx.default_qconfig == QConfig(
        activation=MinMaxObserver.with_args(quant_min=0, quant_max=127),
        weight=MinMaxObserver.with_args(dtype=qfx.qint8, qscheme=qfx.per_tensor_symmetric))
    # A class means the class without arguments; only given arguments are written.
    assert QConfig(ReuseInputObserver, NoopObserver) == qfx.default_reuse_input_qconfig
    spec = MinMaxObserver.with_args(quant_min=0).with_args(quant_max=127)
    assert isinstance(spec, ObserverSpec) and spec.observer is MinMaxObserver
    assert spec.to_dict() == {"observer": "MinMaxObserver", "quant_min": 0, "quant_max": 127}
    assert PlaceholderObserver.with_args(dtype="half").to_dict()["dtype"] == "float16"


def test_backend_table_contents():
    tosa = qfx.get_tosa_backend_config()
    conv = tosa.lookup(["tosa.conv2d", "tosa.clamp"])
    assert conv.root_op == "tosa.conv2d"
    assert conv.input_roles == {"weight": (0, 1), "bias": (0, 2)}
    assert conv.dtype_configs[0].weight_dtype_with_constraints.quant_min_lower_bound == -127
    assert tosa.lookup("tosa.pad").observation_type == ObservationType.OUTPUT_SHARE_OBSERVER_WITH_INPUT
    assert qfx.get_x86_backend_config().lookup("tosa.pad") is None
    qnnpack = qfx.get_qnnpack_backend_config().lookup("tosa.concat")
    assert [d.input_dtype for d in qnnpack.dtype_configs] == ["qint8", "quint8"]


# --- quant-opt reads the JSON --------------------------------------------------


def _annotate(mapping_option, backend_option):
    return qfx.quant_opt(EXAMPLE.read_text(), "--qfx-annotate-qconfig=qconfig-mapping="
                         f"{mapping_option} backend={backend_option}")


@pytest.mark.parametrize("backend", BACKENDS)
def test_quant_opt_reads_the_presets_as_its_builtins(tmp_path, backend):
    qfx.get_default_qconfig_mapping(backend).save(tmp_path / "mapping.json")
    qfx.get_backend_config(backend).save(tmp_path / "backend.json")
    from_files = _annotate(tmp_path / "mapping.json", tmp_path / "backend.json")
    assert "qfx.qconfig" in from_files
    assert from_files == _annotate(f"default:{backend}", backend)


def test_quant_opt_reads_a_custom_mapping(tmp_path):
    mapping = (QConfigMapping().set_global(qfx.default_symmetric_qnnpack_qconfig)
               .set_module_name("fc2", None))
    mapping.save(tmp_path / "mapping.json")
    qfx.get_tosa_backend_config().save(tmp_path / "tosa.json")
    printed = _annotate(tmp_path / "mapping.json", tmp_path / "tosa.json")
    assert printed == _annotate(tmp_path / "mapping.json", "tosa")
    matmuls = [line for line in printed.splitlines() if "= tosa.matmul" in line]
    assert len(matmuls) == 2
    assert "qfx.qconfig = #qfx.qconfig<" in matmuls[0] and "dtype = qint8" in matmuls[0]
    assert 'qfx.qconfig = "none"' in matmuls[1]  # fc2 is not quantized


# --- from_torch ----------------------------------------------------------------


@pytest.fixture(scope="module")
def torch():
    import torch

    warnings.filterwarnings("ignore", module="torch")
    return torch


@pytest.mark.parametrize("backend", BACKENDS)
def test_from_torch_default_mappings_equal_the_presets(torch, backend):
    from torch.ao.quantization import get_default_qconfig, get_default_qconfig_mapping

    assert qfx.from_torch(get_default_qconfig_mapping(backend)) == \
        qfx.get_default_qconfig_mapping(backend)
    assert qfx.from_torch(get_default_qconfig(backend)) == qfx.get_default_qconfig(backend)


def test_from_torch_qconfig_presets(torch):
    from torch.ao.quantization import qconfig as torch_qconfig

    for name in qfx.QCONFIG_PRESET_NAMES:
        assert qfx.from_torch(getattr(torch_qconfig, name)) == getattr(qfx, name), name


def test_from_torch_observer_presets(torch):
    from torch.ao.quantization import observer as torch_observer

    for name in qfx.OBSERVER_PRESETS:
        assert qfx.from_torch(getattr(torch_observer, name)) == getattr(qfx, name), name
    assert qfx.default_weight_observer == MinMaxObserver.with_args(
        dtype="qint8", qscheme="per_tensor_symmetric")


@pytest.mark.parametrize("torch_name,ours", [("x86", "x86"), ("fbgemm", "fbgemm"),
                                             ("qnnpack", "qnnpack"), ("native", "onednn")])
def test_from_torch_backend_tables_equal_the_presets(torch, torch_name, ours):
    import torch.ao.quantization.backend_config as bc
    from torch.ao.quantization.backend_config.x86 import get_x86_backend_config

    getters = {"x86": get_x86_backend_config, "fbgemm": bc.get_fbgemm_backend_config,
               "qnnpack": bc.get_qnnpack_backend_config, "native": bc.get_native_backend_config}
    converted = qfx.from_torch(getters[torch_name]())
    assert converted.name == torch_name
    assert converted.configs == qfx.get_backend_config(ours).configs


def test_from_torch_custom_objects(torch):
    import operator

    import torch.nn as nn
    import torch.nn.functional as F
    from torch.ao import quantization as tq
    from torch.ao.quantization.backend_config import (
        BackendConfig as TorchBackendConfig,
        BackendPatternConfig as TorchPatternConfig,
        DTypeConfig as TorchDTypeConfig,
        DTypeWithConstraints as TorchDTypeWithConstraints,
        ObservationType as TorchObservationType,
    )

    act = tq.HistogramObserver.with_args(dtype=torch.qint8, bins=1024)
    weight = tq.PerChannelMinMaxObserver.with_args(dtype=torch.qint8,
                                                   qscheme=torch.per_channel_symmetric)
    torch_mapping = (
        tq.QConfigMapping()
        .set_global(tq.QConfig(activation=act, weight=weight))
        .set_object_type(nn.Conv2d, None)
        .set_object_type(F.conv2d, tq.default_qconfig)
        .set_object_type(operator.add, tq.default_qconfig)
        .set_object_type("reshape", tq.default_reuse_input_qconfig)
        .set_module_name_regex(r"layer\d", tq.default_per_channel_qconfig)
        .set_module_name("fc", tq.QConfig(activation=tq.MinMaxObserver, weight=tq.NoopObserver))
        .set_module_name_object_type_order("block", nn.Linear, 1, None))
    ours = qfx.from_torch(torch_mapping)
    assert ours.global_qconfig == QConfig(
        HistogramObserver.with_args(dtype="qint8", bins=1024),
        PerChannelMinMaxObserver.with_args(dtype="qint8", qscheme="per_channel_symmetric"))
    assert list(ours.object_type_qconfigs) == [
        "torch.nn.Conv2d", "torch.nn.functional.conv2d", "operator.add", "reshape"]
    assert ours.module_name_qconfigs["fc"] == QConfig(MinMaxObserver, NoopObserver)
    assert list(ours.module_name_object_type_order_qconfigs) == [("block", "torch.nn.Linear", 1)]
    # Our setters take PyTorch's types as well.
    assert QConfigMapping().set_object_type(nn.Conv2d, None).to_dict()["object_type"] == \
        [["torch.nn.Conv2d", None]]

    weighted = TorchDTypeConfig(
        input_dtype=TorchDTypeWithConstraints(dtype=torch.qint8, scale_min_lower_bound=2**-12),
        output_dtype=torch.qint8, weight_dtype=torch.qint8, bias_dtype=torch.float)
    torch_backend = (
        TorchBackendConfig("mine")
        .set_backend_pattern_config(TorchPatternConfig((nn.ReLU, nn.Conv2d))
                                    .add_dtype_config(weighted))
        .set_backend_pattern_config(TorchPatternConfig(nn.Conv2d).add_dtype_config(weighted))
        .set_backend_pattern_config(
            TorchPatternConfig(torch.flatten)
            .set_observation_type(TorchObservationType.OUTPUT_SHARE_OBSERVER_WITH_INPUT)
            .add_dtype_config(TorchDTypeConfig(torch.qint8, torch.qint8)))
        .set_backend_pattern_config(  # no TOSA form: left out
            TorchPatternConfig(nn.GRU).add_dtype_config(weighted)))
    backend = qfx.from_torch(torch_backend)
    assert backend.name == "mine"
    assert [c.pattern for c in backend.configs] == [
        ("tosa.conv2d",), ("tosa.conv2d", "tosa.clamp"), ("tosa.depthwise_conv2d",),
        ("tosa.depthwise_conv2d", "tosa.clamp"), ("tosa.reshape",)]
    conv = backend.lookup("tosa.conv2d")
    assert conv.dtype_configs[0].to_dict() == {
        "input_dtype": {"dtype": "qint8", "scale_min_lower_bound": 2**-12},
        "output_dtype": "qint8", "weight_dtype": "qint8", "bias_dtype": "float32"}
    assert conv.input_roles == {"weight": (0, 1), "bias": (0, 2)}
    assert backend.lookup("tosa.reshape").observation_type == \
        ObservationType.OUTPUT_SHARE_OBSERVER_WITH_INPUT

    assert qfx.from_torch(torch.quint4x2) == "quint4x2"
    assert qfx.from_torch(weighted) == DTypeConfig(
        DTypeWithConstraints("qint8", scale_min_lower_bound=2**-12), "qint8", "qint8", "float32")
    assert MinMaxObserver.with_args(dtype=torch.qint8, qscheme=torch.per_tensor_symmetric) == \
        MinMaxObserver.with_args(dtype="qint8", qscheme="per_tensor_symmetric")


def test_from_torch_errors(torch):
    import torch.nn as nn
    from torch.ao import quantization as tq
    from torch.ao.quantization.backend_config import (
        BackendConfig as TorchBackendConfig,
        BackendPatternConfig as TorchPatternConfig,
        DTypeConfig as TorchDTypeConfig,
    )

    # Fake quantizers are for training; a QAT model converts with
    # qfx.convert_fx, which reads them (test_quantize_fx.py).
    with pytest.raises(ValueError, match="activation: FakeQuantize is a fake quantizer, for "
                       r"training \(QAT\); qfx does not train"):
        qfx.from_torch(tq.default_qat_qconfig)
    with pytest.raises(TypeError, match="cannot convert torch.nn.modules.conv.Conv2d"):
        qfx.from_torch(nn.Conv2d(1, 1, 1))
    # Two PyTorch patterns of one TOSA pattern configured differently.
    conflicting = (
        TorchBackendConfig("bad")
        .set_backend_pattern_config(TorchPatternConfig(nn.Conv2d).add_dtype_config(
            TorchDTypeConfig(torch.quint8, torch.quint8, torch.qint8, torch.float)))
        .set_backend_pattern_config(TorchPatternConfig(torch.nn.functional.conv2d)
                                    .add_dtype_config(TorchDTypeConfig(torch.qint8, torch.qint8))))
    with pytest.raises(ValueError, match=r"\['tosa.conv2d'\]: the PyTorch patterns "
                                         r"\['torch.nn.Conv2d'\] and "
                                         r"\['torch.nn.functional.conv2d'\] both map"):
        qfx.from_torch(conflicting)


# --- errors ----------------------------------------------------------------------


def test_observer_errors():
    with pytest.raises(TypeError, match=r"bins: MinMaxObserver takes no argument 'bins' "
                                        r"\(it takes dtype, qscheme, reduce_range"):
        MinMaxObserver.with_args(bins=8)
    with pytest.raises(TypeError, match="has no argument 'quantmin'"):
        HistogramObserver.with_args(quantmin=0)
    with pytest.raises(ValueError, match=r"dtype: unknown dtype 'qint16'; expected one of quint8"):
        MinMaxObserver.with_args(dtype="qint16")
    with pytest.raises(ValueError, match=r"qscheme: unknown qscheme 'per_tensor'"):
        MinMaxObserver.with_args(qscheme="per_tensor")
    with pytest.raises(ValueError, match=r"expected quant_min < quant_max, got \[5, 5\]"):
        MinMaxObserver.with_args(quant_min=5, quant_max=5)
    with pytest.raises(ValueError, match=r"the range \[0, 300\] is outside quint8's range"):
        MinMaxObserver.with_args(quant_min=0, quant_max=300)
    with pytest.raises(ValueError, match="activation: MinMaxObserver: quant_min and quant_max "
                                         "must be given together"):
        QConfig(MinMaxObserver.with_args(quant_min=0), NoopObserver)
    with pytest.raises(ValueError, match="expected a per-channel qscheme"):
        PerChannelMinMaxObserver.with_args(qscheme="per_tensor_symmetric")
    with pytest.raises(ValueError, match="cannot reduce range for symmetric quantization"):
        MinMaxObserver.with_args(qscheme="per_tensor_symmetric", reduce_range=True)
    with pytest.raises(ValueError, match="expected 0 < averaging_constant <= 1, got 2"):
        MovingAverageMinMaxObserver.with_args(averaging_constant=2.0)
    with pytest.raises(ValueError, match="scale and zero_point are required"):
        QConfig(FixedQParamsObserver, NoopObserver)
    with pytest.raises(TypeError, match="reduce_range: expected True or False, got int 1"):
        MinMaxObserver.with_args(reduce_range=1)
    with pytest.raises(TypeError, match="use MinMaxObserver.with_args"):
        MinMaxObserver()
    with pytest.raises(TypeError, match="weight: expected an observer"):
        QConfig(MinMaxObserver, "MinMaxObserver")


def test_a_misspelt_object_type_string_warns():
    # PyTorch's QConfigMapping takes classes; qfx's takes their names too, so
    # a typo would match no op and go unnoticed: a "torch." / "operator."
    # name PyTorch does not have, or a bare name no Tensor method has, warns
    # with the closest name. Op names of dialects are not checked.
    with pytest.warns(UserWarning, match=r"object_type: 'torch\.nn\.Conv2D' is no public class "
                      r"or function of PyTorch: no op matches it \(did you mean "
                      r"'torch\.nn\.Conv2d'\?\)"):
        QConfigMapping().set_object_type("torch.nn.Conv2D", None)
    with pytest.warns(UserWarning, match=r"module_name_object_type_order: 'reshap' is no Tensor "
                      r"method: no op matches it \(did you mean 'reshape'\?\)"):
        QConfigMapping().set_module_name_object_type_order("", "reshap", 0, None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in ("torch.nn.Conv2d", "torch.nn.intrinsic.LinearReLU", "operator.add",
                     "reshape", "hardsigmoid", "tosa.conv2d", "arith.addf"):
            QConfigMapping().set_object_type(name, None)
        for backend in ("x86", "fbgemm", "qnnpack", "onednn"):
            qfx.get_default_qconfig_mapping(backend)


def test_mapping_errors():
    with pytest.raises(ValueError, match=r"object_type\[0\]\[1\]\.activation\.observer: unknown "
                                         r"observer 'MinMaxObsrver'; expected one of MinMaxObserver"):
        QConfigMapping.from_dict({"object_type": [["tosa.conv2d", {
            "activation": {"observer": "MinMaxObsrver"}, "weight": {"observer": "NoopObserver"}}]]})
    with pytest.raises(ValueError, match=r"module_name\[0\]\[1\]\.weight: MinMaxObserver: expected "
                                         r"quant_min < quant_max, got \[5, 5\]"):
        QConfigMapping.from_dict({"module_name": [["a", {
            "activation": {"observer": "MinMaxObserver"},
            "weight": {"observer": "MinMaxObserver", "quant_min": 5, "quant_max": 5}}]]})
    with pytest.raises(ValueError, match="unknown key 'objecttype' in a qconfig mapping"):
        QConfigMapping.from_dict({"objecttype": []})
    with pytest.raises(ValueError, match=r"module_name_regex\[0\]\[0\]: regex 'conv\[0-9': "
                                         r"unterminated \[\.\.\.\]"):
        QConfigMapping.from_dict({"module_name_regex": [["conv[0-9", None]]})
    with pytest.raises(ValueError, match="unknown qconfig preset 'default_qconfg'"):
        QConfigMapping().set_global("default_qconfg")
    with pytest.raises(ValueError, match="unknown qconfig mapping preset 'default:arm'"):
        QConfigMapping.from_dict("default:arm")
    with pytest.raises(ValueError, match="expected an order index >= 0, got -1"):
        QConfigMapping().set_module_name_object_type_order("a", "tosa.add", -1, None)
    with pytest.raises(TypeError, match=r'"": expected a QConfig or None, got int'):
        QConfigMapping().set_global(3)
    with pytest.raises(ValueError, match="backend: unknown backend 'arm'"):
        qfx.get_default_qconfig_mapping("arm")


def test_backend_config_errors():
    with pytest.raises(ValueError, match="pattern: expected 1 to 3 ops, got 4"):
        BackendPatternConfig(["tosa.matmul", "tosa.add", "tosa.clamp", "tosa.clamp"])
    with pytest.raises(ValueError, match=r"configs\[0\]\.pattern: expected 1 to 3 ops, got 4"):
        BackendConfig.from_dict({"name": "b", "configs": [{"pattern": ["a", "b", "c", "d"]}]})
    with pytest.raises(ValueError, match=r"configs\[0\]\.dtype_configs\[0\]\.input_dtype: "
                                         r"unknown dtype 'qint16'"):
        BackendConfig.from_dict({"configs": [{"pattern": "tosa.add",
                                              "dtype_configs": [{"input_dtype": "qint16"}]}]})
    with pytest.raises(ValueError, match="root_op: 'tosa.add' is not an op of the pattern"):
        BackendPatternConfig("tosa.conv2d").set_root_op("tosa.add")
    with pytest.raises(ValueError, match="input_roles.bias: op index 1 is outside the pattern of "
                                         "1 ops"):
        BackendPatternConfig("tosa.conv2d").set_input_roles({"bias": (1, 2)})
    with pytest.raises(ValueError, match="unknown observation type 'share'"):
        BackendPatternConfig("tosa.add").set_observation_type("share")
    with pytest.raises(ValueError, match=r"weight_dtype.quant_min_lower_bound: -200 is outside "
                                         r"qint8's range \[-128, 127\]"):
        DTypeConfig(weight_dtype={"dtype": "qint8", "quant_min_lower_bound": -200})
    with pytest.raises(ValueError, match="expected quant_min_lower_bound < quant_max_upper_bound"):
        DTypeWithConstraints("qint8", quant_min_lower_bound=5, quant_max_upper_bound=5)
    with pytest.raises(ValueError, match="float32 takes no quantization range"):
        DTypeWithConstraints("float32", quant_min_lower_bound=0)
    with pytest.raises(ValueError, match="unknown key 'in_dtype' in a dtype config"):
        DTypeConfig.from_dict({"in_dtype": "qint8"})
    with pytest.raises(ValueError, match="unknown backend config 'arm'"):
        qfx.get_backend_config("arm")


# Documents our validation rejects; quant-opt must reject each of them too, and
# accept the valid ones, so that Python's checks are quant-opt's.
_MAPPING_CASES = [
    (True, {"": {"activation": {"observer": "HistogramObserver", "bins": 512, "upsample_rate": 4},
                 "weight": {"observer": "MinMaxObserver", "dtype": "qint8",
                            "qscheme": "per_tensor_symmetric"}}}),
    (True, {"": "default_qconfig", "module_name": [["fc1", None]]}),
    (False, {"": {"activation": {"observer": "MinMaxObserver", "bins": 4},
                  "weight": {"observer": "NoopObserver"}}}),
    (False, {"": {"activation": {"observer": "MinMaxObserver", "quant_min": 0, "quant_max": 300},
                  "weight": {"observer": "NoopObserver"}}}),
    (False, {"": {"activation": {"observer": "MinMaxObserver", "dtype": "float16"},
                  "weight": {"observer": "NoopObserver"}}}),
    (False, {"": {"activation": {"observer": "MinMaxObserver", "quant_min": 1, "quant_max": 10},
                  "weight": {"observer": "NoopObserver"}}}),
    (False, {"": {"activation": {"observer": "FixedQParamsObserver", "scale": 0.1,
                                 "zero_point": 300},
                  "weight": {"observer": "NoopObserver"}}}),
    (False, {"": {"activation": {"observer": "MovingAverageMinMaxObserver",
                                 "averaging_constant": 0.0},
                  "weight": {"observer": "NoopObserver"}}}),
    (False, {"": {"activation": {"observer": "ReuseInputObserver", "dtype": "quint8"},
                  "weight": {"observer": "NoopObserver"}}}),
    (False, {"object_type": [["tosa.add", "no_such_preset"]]}),
    (True, {"module_name_regex": [[r"fc[\d]+|re\w*\.x\+", None], [r"\(fc\)\*?", None]]}),
    (False, {"module_name_regex": [["(?i)fc1", None]]}),
    (False, {"module_name_regex": [["fc.*?", None]]}),
    (False, {"module_name_regex": [[r"\bfc1", None]]}),
    (False, {"module_name_regex": [[r"fc[\S]", None]]}),
    (False, {"module_name_regex": [["fc(1", None]]}),
    (False, {"module_name_object_type_order": [["a", "tosa.add", -1, None]]}),
    (False, {"module_name": [["a"]]}),
]


@pytest.mark.parametrize("valid,document", _MAPPING_CASES)
def test_validation_agrees_with_quant_opt(tmp_path, valid, document):
    path = tmp_path / "mapping.json"
    path.write_text(json.dumps(document))
    if valid:
        QConfigMapping.from_dict(document)
        _annotate(path, "x86")
    else:
        with pytest.raises((TypeError, ValueError)):
            QConfigMapping.from_dict(document)
        with pytest.raises(qfx.ToolError, match="qconfig-mapping"):
            _annotate(path, "x86")


# Backend config documents both must reject.
_BACKEND_CASES = [
    {"configs": [{"pattern": ["a", "b", "c", "d"]}]},
    {"configs": [{"pattern": "tosa.add", "root_op": "tosa.mul"}]},
    {"configs": [{"pattern": "tosa.add", "dtype_configs": [
        {"weight_dtype": {"dtype": "qint8", "quant_min_lower_bound": -200}}]}]},
    {"configs": [{"pattern": "tosa.add", "input_roles": {"weight": [1, 1]}}]},
    {"configs": [{"pattern": "tosa.add", "observation_type": "share"}]},
    {"name": "b", "patterns": []},
]


@pytest.mark.parametrize("document", _BACKEND_CASES)
def test_backend_validation_agrees_with_quant_opt(tmp_path, document):
    path = tmp_path / "backend.json"
    path.write_text(json.dumps(document))
    with pytest.raises((TypeError, ValueError)):
        BackendConfig.from_dict(document)
    with pytest.raises(qfx.ToolError, match="backend"):
        _annotate("default:x86", path)


# --- docs/python.md ----------------------------------------------------------------


def test_docs_examples_run(torch, monkeypatch):
    """The page's Python blocks run as written (from the repository root)."""
    import re

    text = (REPO / "docs" / "python.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 3
    monkeypatch.chdir(REPO)
    namespace = {}
    for block in blocks:
        exec(compile(block, "docs/python.md", "exec"), namespace)
    assert "qfx.qconfig" in namespace["annotated"]
    assert json.loads(pathlib.Path("/tmp/my_backend.json").read_text()) == \
        namespace["backend_config"].to_dict()


def test_from_torch_refuses_modules_and_fusers_it_cannot_run(torch):
    """A PyTorch BackendPatternConfig names modules PyTorch swaps in and
    functions it calls; qfx lowers patterns its own way, so it takes
    PyTorch's own for the pattern (its tables convert, test above) and
    refuses others, which it would otherwise ignore."""
    import torch.nn as nn
    import torch.ao.nn.intrinsic as nni
    from torch.ao.quantization.backend_config import (
        BackendPatternConfig as TorchPatternConfig,
        get_native_backend_config,
    )

    def fuse_my_way(is_qat, conv, relu):
        return nni.ConvReLU2d(conv, relu)

    class MyReferenceLinear(nn.Linear):
        pass

    def native_with(config):
        return get_native_backend_config().set_backend_pattern_config(config)

    native = {c.pattern: c for c in get_native_backend_config().configs.values()}
    fused = copy_config(native[(nn.ReLU, nn.Conv2d)], TorchPatternConfig)
    with pytest.raises(NotImplementedError, match=r"has fuser_method .*fuse_my_way, not "
                       r"PyTorch's own for it \(.*fuser_method\); qfx lowers each pattern"):
        qfx.from_torch(native_with(fused.set_fuser_method(fuse_my_way)))
    linear = copy_config(native[nn.Linear], TorchPatternConfig)
    with pytest.raises(NotImplementedError, match="reference_quantized_module .*MyReferenceLinear"):
        qfx.from_torch(native_with(linear.set_reference_quantized_module(MyReferenceLinear)))
    # A pattern PyTorch's table does not have: any module is another's.
    silu = TorchPatternConfig(nn.SiLU).set_dtype_configs(linear.dtype_configs)
    with pytest.raises(NotImplementedError, match=r"root_module .*SiLU, not PyTorch's own for "
                                                  r"it \(none\)"):
        qfx.from_torch(native_with(silu.set_root_module(nn.SiLU)))
    # The same fuser PyTorch's table builds anew each time is PyTorch's own.
    qfx.from_torch(native_with(copy_config(native[(nn.ReLU, nn.Conv2d)], TorchPatternConfig)))


def copy_config(config, cls):
    """A new PyTorch BackendPatternConfig with `config`'s settings."""
    copied = cls(config.pattern)
    copied.__dict__.update(config.__dict__)
    return copied
