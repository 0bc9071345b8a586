"""The code's shape: no import circle in ``stsdemo/``, no import of ``bench`` from it, a core (``stsdemo/`` without
``stsdemo/app/`` and ``stsdemo/serving/``) that imports neither the app nor what only the app needs (gradio), a
server policy (``stsdemo/serving/``) that imports nothing of the app, nothing the Playground builds on importing the
Playground, no function over 100 lines and no .py or .js file over 500 in ``stsdemo/`` and ``bench/``, slow-test
names that still exist, and every paper value declared once."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "stsdemo"
APP = "stsdemo.app"  # the app layer: the tabs and what they share
SERVING = "stsdemo.serving"  # what a visitor of the public server may do; the rest is the core
SOURCES = (PACKAGE, REPO / "bench")  # the trees the size rules hold for


# ---- the import graph -------------------------------------------------------------------------------------


def module_names(root: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its ``__init__.py``)."""
    names = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root.parent).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def _imported(module: str, path: Path, node: ast.Import | ast.ImportFrom, known: set[str]) -> set[str]:
    """The package's modules that one import statement loads (``from x import y`` loads ``x.y`` when y is a
    module; a relative import is resolved against the importing module's package)."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names}
    base = node.module or ""
    if node.level:
        package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        anchor = package[: len(package) - node.level + 1]
        base = ".".join(anchor + ([base] if base else []))
    return {base} | {f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in known}


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """module -> the package's modules it imports, from the AST: every import statement counts, at the top or
    inside a function. Importing ``a.b.c`` also runs the ``__init__`` of each package above it, except those
    the importer is itself inside (they have already started)."""
    modules = module_names(root)
    graph = {}
    for module, path in modules.items():
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for target in _imported(module, path, node, set(modules)):
                parts = target.split(".")
                for depth in range(1, len(parts) + 1):
                    loaded = ".".join(parts[:depth])
                    inside = module == loaded or module.startswith(loaded + ".")
                    if loaded in modules and not inside:
                        targets.add(loaded)
        graph[module] = targets
    return graph


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every circle of imports, each once: ``[a, b, a]`` starting at its alphabetically first module."""
    circles = []

    def walk(path: list[str]) -> None:
        for other in sorted(graph.get(path[-1], ())):
            if other == path[0]:
                circles.append(path + [other])
            elif other > path[0] and other not in path:
                walk(path + [other])

    for start in sorted(graph):
        walk([start])
    return circles


def test_no_import_circle_in_the_package():
    circles = import_circles(import_graph())
    assert not circles, "import circles (lazy imports count): " + "; ".join(" -> ".join(c) for c in circles)


def absolute_imports(path: Path) -> list[str]:
    """The dotted names a file imports by absolute name (``import a.b``, ``from a.b import c``), at the top or
    inside a function; relative imports stay in the package and are the graph's business."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names.append(node.module or "")
    return names


def within(name: str, package: str) -> bool:
    """Whether the dotted ``name`` is ``package`` or inside it."""
    return name == package or name.startswith(package + ".")


def test_the_library_and_the_app_import_nothing_from_bench():
    """Dependencies run one way: bench imports the library and the app, never the other way round."""
    found = [
        f"{module}: {name}"
        for module, path in module_names().items()
        for name in absolute_imports(path)
        if within(name, "bench")
    ]
    assert not found, found


PLAYGROUND = "stsdemo.playground"  # built on the core: what it reads must not read it back


def reached_from(graph: dict[str, set[str]], starts: set[str]) -> set[str]:
    """Every module that importing ``starts`` loads, directly or through another."""
    seen, todo = set(), list(starts)
    while todo:
        for target in graph[todo.pop()] - seen:
            seen.add(target)
            todo.append(target)
    return seen


def test_what_the_playground_builds_on_imports_nothing_of_the_playground():
    """The Playground is a layer over the core: a core module it reads (the model card, the labels) learns
    nothing from it, or the core would move whenever the Playground does."""
    graph = import_graph()
    playground = {module for module in graph if within(module, PLAYGROUND)}
    below = reached_from(graph, playground) - playground
    found = [
        f"{module}: {target}" for module in sorted(below) for target in sorted(graph[module] & playground)
    ]
    assert not found, found


def test_bench_reads_the_core_not_the_app():
    """bench imports nothing from ``stsdemo.app``, nor ``app.py`` (which builds it), lazily or not: a bench module
    that formats, compares or computes reads the core, and one that measures the app serves it in a process of its
    own and talks to it over HTTP (bench/perf/served_app.py)."""
    found = {
        f"{module}: {name}"
        for module, path in module_names(REPO / "bench").items()
        for name in absolute_imports(path)
        if within(name, APP) or name == "app"
    }
    assert not found, sorted(found)


BENCH_SHARED = ("bench.common", "bench.schema", "bench.sweep")  # run_all, also at the top, runs both packages


def test_bench_shared_modules_import_neither_the_evidence_nor_perf():
    """bench's shared modules sit below its two packages (bench.evidence, bench.perf), which both read them: one
    that reached into either would tie every benchmark to that side's code."""
    graph = import_graph(REPO / "bench")
    assert set(BENCH_SHARED) <= set(graph), sorted(graph)
    found = [
        f"{module}: {target}"
        for module in BENCH_SHARED
        for target in sorted(graph[module])
        if within(target, "bench.evidence") or within(target, "bench.perf")
    ]
    assert not found, found


def app_only_packages() -> set[str]:
    """The top-level import names of what only the app needs: pyproject.toml's ``app`` extra
    (``"gradio==6.31.0"`` -> ``gradio``)."""
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    extra = re.search(r"^app\s*=\s*\[(.*?)\]", text, re.MULTILINE | re.DOTALL).group(1)
    return {
        re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].lower().replace("-", "_")
        for requirement in re.findall(r'"([^"]+)"', extra)
    }


def test_the_core_imports_neither_the_app_nor_gradio():
    """The library installs without the app's extra (pyproject.toml), so the core imports no module of
    ``stsdemo.app`` and, itself or through what it loads, none of the extra's packages, lazily or not. The core
    reads the server's declarations (``stsdemo.serving``'s caps and budget: config.py bounds its settings by them),
    never its Gradio side; the app and bench read the core, not the reverse."""
    outside = app_only_packages()
    assert "gradio" in outside, outside
    graph, paths = import_graph(), module_names()
    core = {module for module in graph if not within(module, APP) and not within(module, SERVING)}
    found = [
        f"{module}: {target}"
        for module in sorted(core)
        for target in sorted(graph[module])
        if within(target, APP)
    ]
    for module in sorted(core | reached_from(graph, core)):
        found += [
            f"{module} (loaded by the core): {name}"
            for name in absolute_imports(paths[module])
            if name.split(".")[0] in outside
        ]
    assert not found, found


def test_the_server_policy_imports_no_tab():
    """``stsdemo.serving`` sits under the tabs: they import it, and it imports no module of ``stsdemo.app`` (no
    tab, nothing of ``stsdemo.app.ui``), lazily or not; what it needs from a tab is passed in by the tab (the
    Fine-tune tab hands the curve sender its dev chart's y range)."""
    graph = import_graph()
    assert any(within(module, SERVING) for module in graph)
    found = [
        f"{module}: {target}"
        for module, targets in sorted(graph.items())
        if within(module, SERVING)
        for target in sorted(targets)
        if within(target, APP)
    ]
    assert not found, found


MAX_FILE_LINES = 500


def source_files() -> list[Path]:
    """Every .py and .js file of ``stsdemo/`` and ``bench/`` (the Playground's page scripts count too)."""
    return [path for root in SOURCES for pattern in ("*.py", "*.js") for path in sorted(root.rglob(pattern))]


def wrapped_lines(text: str) -> set[int]:
    """The lines of Python ``text`` that continue a bracketed expression: ``ruff format`` puts a long call's
    arguments one a line, and a size rule that counted them would measure the formatter, not the code."""
    depth, start, wrapped = 0, 0, set()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.OP and token.string in "([{":
            start, depth = (token.start[0] if depth == 0 else start), depth + 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
            if depth == 0:
                wrapped.update(range(start + 1, token.end[0] + 1))
    return wrapped


def line_count(path: Path) -> int:
    """A file's lines as a reader counts them: a Python file's wrapped continuation lines not counted."""
    text = path.read_text(encoding="utf-8")
    return text.count("\n") - (len(wrapped_lines(text)) if path.suffix == ".py" else 0)


def test_a_call_wrapped_by_the_formatter_counts_as_one_line():
    text = "total = sum(\n    [\n        1,\n        2,\n    ]\n)\nprint(total)\n"
    assert wrapped_lines(text) == {2, 3, 4, 5, 6}


def test_no_file_over_500_lines():
    counts = {path.relative_to(REPO).as_posix(): line_count(path) for path in source_files()}
    long = {name: lines for name, lines in counts.items() if lines > MAX_FILE_LINES}
    assert not long, f"over {MAX_FILE_LINES} lines: {long}"


def test_no_function_over_100_lines():
    long = []
    for path in (path for path in source_files() if path.suffix == ".py"):
        name, text = path.relative_to(REPO).as_posix(), path.read_text(encoding="utf-8")
        wrapped = wrapped_lines(text)
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                span = range(node.lineno, node.end_lineno + 1)
                lines = len(span) - len(wrapped.intersection(span))
                if lines > 100:
                    long.append(f"{name}: {node.name}() has {lines} lines")
    assert not long, long


def test_the_graph_sees_lazy_and_relative_imports(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("from .leaf import value\n")
    (package / "sub" / "leaf.py").write_text("value = 1\n")
    (package / "top.py").write_text("def late():\n    from .sub.leaf import value\n")
    (package / "other.py").write_text("from . import top\n")
    graph = import_graph(package)
    assert graph["pkg.top"] == {"pkg.sub", "pkg.sub.leaf"}  # the function-level import, and sub's __init__
    assert graph["pkg.sub"] == {"pkg.sub.leaf"} and graph["pkg.sub.leaf"] == set()
    assert graph["pkg.other"] == {"pkg.top"}
    assert import_circles(graph) == []
    (package / "sub" / "leaf.py").write_text("def late():\n    from ..other import top\n")
    assert import_circles(import_graph(package)) == [
        ["pkg.other", "pkg.top", "pkg.sub", "pkg.sub.leaf", "pkg.other"],  # through sub's __init__
        ["pkg.other", "pkg.top", "pkg.sub.leaf", "pkg.other"],
    ]


# ---- the fast loop ----------------------------------------------------------------------------------------


def test_the_slow_tests_named_in_conftest_exist():
    """tests/conftest.py marks tests slow by module and by name: a renamed test or module would drop out of that
    rule silently and slow the fast loop down, so each name must still be a test."""
    from conftest import SLOW_MODULES, SLOW_TESTS

    tests = REPO / "tests"
    missing = [f"{module}.py" for module in SLOW_MODULES if not (tests / f"{module}.py").is_file()]
    for module, names in SLOW_TESTS.items():
        path = tests / f"{module}.py"
        defined = (
            {
                node.name
                for node in ast.parse(path.read_text(encoding="utf-8")).body
                if isinstance(node, ast.FunctionDef)
            }
            if path.is_file()
            else set()
        )
        missing += [f"{module}.py::{name}" for name in sorted(set(names) - defined)]
    assert not missing, missing


# ---- declared once ----------------------------------------------------------------------------------------


def test_a_paper_value_changed_in_its_one_place_reaches_help_form_and_presets(monkeypatch):
    from stsdemo.app.finetune import form
    from stsdemo.cli import build_parser
    from stsdemo.config import TrainConfig, preset_label
    from stsdemo.losses.registry import build_loss
    from stsdemo.losses.spec import PAPER_X0, TRANSLATED_RELU
    from stsdemo.static_site import manifest

    monkeypatch.setitem(TRANSLATED_RELU.paper_k, "bert", 7.25)
    train = build_parser()._subparsers._group_actions[0].choices["train"]
    helps = {action.dest: action.help for action in train._actions}
    label = f"Paper · BERT · Translated ReLU (k=7.25, x0={PAPER_X0:g}, NLI)"
    assert "trelu: 7.25 (BERT)" in helps["k"]  # --help of --k
    assert f"paper-bert-trelu: {label}" in helps["preset"]  # --help of --preset
    assert "trelu: 7.25 (BERT)" in form.field_spec("k").info["en"]  # the Fine-tune form's hint
    assert "trelu: 7.25 (BERT)" in manifest()["loss"]["hint"]  # the Loss explorer's hint (the page's)
    assert preset_label("paper-bert-trelu") == label  # the preset menu
    assert TrainConfig.from_preset("paper-bert-trelu").k == TrainConfig.from_preset("tune-trelu").k == 7.25
    assert build_loss("trelu").k == 7.25
