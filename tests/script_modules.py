"""The files of scripts/ as modules for their tests, each registered under a name of its own ("scripts_ablation"):
their dataclasses look their module up."""
from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from core.settings import PROJECT_ROOT as ROOT


def load_script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"scripts_{name}", ROOT / "scripts" / f"{name}.py")
    module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
