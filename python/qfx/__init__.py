"""qfx: PyTorch's graph-mode post-training quantization, compiled with MLIR.

The package drives qfx's command-line tools (quant-opt, and later quant-run and
quant-compile). Its configuration API will mirror torch.ao.quantization.
"""

from qfx.tools import ToolError, find_tool, quant_opt
from qfx.exporter import ExportError, export_tosa

__all__ = ["ToolError", "find_tool", "quant_opt"]
