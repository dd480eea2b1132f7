"""The house rules, checked on the source tree: imports point down the floors, no file over 500 lines,
no long function without a docstring that says why it is long.

Each package's own opening docstring names what it may import; ``MAY_IMPORT`` is the same list, held
against the code.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Package -> the project packages it may import (besides itself), floor by floor from the bottom.
MAY_IMPORT: dict[str, set[str]] = {
    "text": set(),
    "mappings": set(),
    "ingest": {"text"},
    "core": {"ingest", "text", "mappings"},
    "search": {"core", "text", "ingest"},
    "workers": {"core", "ingest", "text"},
    "api": {"search", "core", "workers", "text", "ingest"},
    "evident": {"api", "workers", "search", "core", "ingest", "text", "mappings"},
}
MAX_FILE_LINES = 500  # a file a reader takes in at one sitting
MAX_FUNCTION_LINES = 60  # longer wants a reason in its docstring


def source_files() -> list[Path]:
    return sorted(path for package in MAY_IMPORT for path in (ROOT / package).rglob("*.py"))


def project_imports(tree: ast.AST) -> set[str]:
    """The top-level project packages a module imports, at any depth in the module (lazy imports too)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found.update(name.split(".")[0] for name in names if name.split(".")[0] in MAY_IMPORT)
    return found


@pytest.mark.parametrize("path", source_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_point_down(path: Path):
    package = path.relative_to(ROOT).parts[0]
    upward = project_imports(ast.parse(path.read_text())) - MAY_IMPORT[package] - {package}
    assert not upward, f"{path.relative_to(ROOT)} imports {sorted(upward)}, above or beside {package}/"


@pytest.mark.parametrize("path", [*source_files(), *sorted((ROOT / "scripts").glob("*.py"))],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_file_and_function_size(path: Path):
    text = path.read_text()
    assert text.count("\n") <= MAX_FILE_LINES, f"{path.relative_to(ROOT)} has {text.count(chr(10))} lines"
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1
            assert length <= MAX_FUNCTION_LINES or ast.get_docstring(node), (
                f"{path.relative_to(ROOT)}:{node.lineno} {node.name} is {length} lines with no docstring saying why")


@pytest.mark.parametrize("package", sorted(MAY_IMPORT))
def test_every_package_says_what_lives_there(package: str):
    docstring = ast.get_docstring(ast.parse((ROOT / package / "__init__.py").read_text()))
    assert docstring and len(docstring.split()) >= 8, f"{package}/__init__.py needs an opening docstring"
