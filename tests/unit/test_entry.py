"""One composition root: every function's handler lives in the package (scholar.entry); functions/<name>/app.py
re-exports it and nothing else; the AWS stand-in routes to the same object; the local backend calls the same
function without the Lambda wrapping. The state machines ship inside the package, one copy read by both the
template and the local runner."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest
from samtranslator.yaml_helper import yaml_parse

from scholar.entry import functions, route
from scholar.local.deploy import _function_routes
from scholar.runtime.local_executions import STATEMACHINES

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = yaml_parse((REPO / "template.yaml").read_text())
FOLDERS = sorted(path.parent.name for path in (REPO / "functions").glob("*/app.py"))


def _template_functions() -> dict[str, str]:
    """Logical id → the folder of its code (CodeUri ``functions/<folder>/``)."""
    return {logical: Path(resource["Properties"]["CodeUri"]).name
            for logical, resource in TEMPLATE["Resources"].items() if resource["Type"] == "AWS::Serverless::Function"}


def test_every_function_of_the_template_has_its_app_py_and_every_app_py_a_function():
    assert sorted(set(_template_functions().values())) == FOLDERS


@pytest.mark.parametrize("folder", FOLDERS)
def test_app_py_only_re_exports_the_handler_the_package_holds(folder):
    tree = ast.parse((REPO / "functions" / folder / "app.py").read_text())
    statements = [node for node in tree.body
                  if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))]
    imports = [node for node in statements if isinstance(node, ast.ImportFrom)]
    module, attribute = route(folder)

    assert len(imports) == 1 and imports[0].module == module
    assert [(alias.name, alias.asname or alias.name) for alias in imports[0].names] == [(attribute, "lambda_handler")]
    assert all(isinstance(node, ast.ImportFrom | ast.Assign) for node in statements)  # __all__ beside it, no logic


def test_the_stand_in_routes_each_function_to_the_handler_its_app_py_exports():
    routes = _function_routes(TEMPLATE)
    for logical, folder in _template_functions().items():
        handler = routes[logical].load()
        assert handler is getattr(importlib.import_module(route(folder)[0]), route(folder)[1])
    assert routes["PapersFunction"].load() is functions.papers


def test_every_function_but_the_gateway_and_the_authorization_server_runs_in_process():
    assert sorted(functions.FUNCTIONS) == sorted(set(FOLDERS) - {"gateway", "auth"})


def test_the_template_and_the_local_runner_read_the_same_state_machine_files():
    used = sorted((REPO / resource["Properties"]["DefinitionUri"]).resolve()
                  for resource in TEMPLATE["Resources"].values() if resource["Type"] == "AWS::Serverless::StateMachine")

    assert used == sorted(path.resolve() for path in STATEMACHINES.glob("*.asl.json"))
    assert STATEMACHINES.parent == Path(functions.__file__).resolve().parents[1]  # inside the package
    assert not (REPO / "statemachines").exists()  # one copy


def test_the_wheel_ships_the_state_machines():
    import tomllib

    data = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "statemachines/*.asl.json" in data["scholar"]
