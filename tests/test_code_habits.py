"""Habits the code keeps: no import cycle inside the kit, comparators only in the engine, ruff clean."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.course import shipped_problem_sets
from autograder.spec import REPO_ROOT

PACKAGE = REPO_ROOT / "autograder"


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """module -> the kit's modules it imports, at module level or inside a function alike (a
    function-level import that closes a cycle is a cycle deferred, not removed)."""
    modules = {_module_name(p): p for p in package.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        package_name = name if path.name == "__init__.py" else name.rpartition(".")[0]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                deps.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package_name.split(".")[: len(package_name.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module
                submodules = {f"{target}.{a.name}" for a in node.names} & modules.keys()
                deps.update(submodules)  # `from pkg import module` needs the module, not pkg's code
                if len(submodules) < len(node.names):
                    deps.add(target)  # a name defined in target itself
        graph[name] = {d for d in deps if d in modules and d != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], [0]

    def visit(root):
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_in_the_kit():
    found = cycles(import_graph())
    assert not found, "import cycles in autograder/: " + "; ".join(" <-> ".join(c) for c in found)


def _comparator_classes(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            bases = {getattr(b, "id", getattr(b, "attr", "")) for b in node.bases}
            if bases & {"Comparator", "AllClose", "Exact", "Formula", "Choice", "IntegerArray"}:
                names.append(f"{path.name}:{node.name}")
    return names


def test_comparators_live_in_the_engine_only():
    """A problem set uses the engine's comparators; one that needs a new behaviour adds it there."""
    copied = [name for p in shipped_problem_sets().rglob("*.py") for name in _comparator_classes(p)]
    assert not copied, f"comparators defined in problem sets: {copied}"


@pytest.mark.parametrize("command", [["check", "."], ["format", "--check", "."]])
def test_ruff_is_clean(command):
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent))  # the test extra pins it
    assert ruff, "ruff is not installed in this environment (pip install -e '.[test]')"
    r = subprocess.run([ruff, *command], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]


def test_every_package_of_the_kit_is_in_the_wheel():
    """pyproject.toml names the kit's packages (the shipped problem sets are mapped in from
    assignments/): a new subpackage left out would be missing from an installed kit."""
    import tomllib

    named = set(tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {_module_name(p) for root in ("autograder", "solutions") for p in (REPO_ROOT / root).rglob("__init__.py")}
    found.add("autograder.shipped_assignments")
    assert named == found, f"missing from pyproject: {sorted(found - named)}; not packages: {sorted(named - found)}"


# ---------------------------------------------------------------- the house (README: Layout)

DESIGN_TOP = {"pyproject.toml", "assignments", "solutions", "autograder", "release", "tests", "README.md"}
USUAL_EXTRAS = {"examples", "scripts", "dev", ".ci", ".gitignore", "autograder.toml", "student-requirements.txt"}


def _tracked() -> list[str]:
    r = subprocess.run(["git", "ls-files"], cwd=REPO_ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip("not a git checkout")
    return r.stdout.splitlines()


def test_the_top_of_the_repository_is_the_designs():
    top = {path.split("/", 1)[0] for path in _tracked()}
    assert DESIGN_TOP <= top, f"missing: {sorted(DESIGN_TOP - top)}"
    assert top <= DESIGN_TOP | USUAL_EXTRAS, f"unexpected at the top: {sorted(top - DESIGN_TOP - USUAL_EXTRAS)}"
    assert not (PACKAGE / "problem_sets").exists(), "course content lives in assignments/, not inside the engine"


def test_the_engine_is_in_wings():
    top_modules = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top_modules) <= 8, f"{len(top_modules)} modules directly in autograder/: {top_modules}"


def test_no_file_over_400_lines():
    long = [
        f"{p.relative_to(REPO_ROOT)}: {n}"
        for root in ("autograder", "assignments")
        for p in (REPO_ROOT / root).rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400
    ]
    assert not long, f"files over 400 lines: {long}"


def _private_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(("autograder", "solutions")):
            found += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
    return found


def test_no_module_imports_a_private_name_from_another():
    found = {
        str(p.relative_to(REPO_ROOT)): names
        for root in ("autograder", "assignments")
        for p in (REPO_ROOT / root).rglob("*.py")
        if (names := _private_imports(p))
    }
    assert not found, f"private names imported across modules: {found}"


# (importer, imported): imports that would run against the flow intake -> grading -> judging,
# releasing -> (students) -> grading; proving sits above releasing and grading.
AGAINST_THE_FLOW = [
    ("autograder.intake", "autograder.grading"),
    ("autograder.grading", "autograder.releasing"),
    ("autograder.grading", "autograder.similarity"),
    ("autograder.grading", "autograder.proving"),
    ("autograder.releasing", "autograder.proving"),
    ("autograder.judging", "autograder.grading"),
    ("autograder.judging", "autograder.proving"),
]


def test_no_import_runs_against_the_flow():
    graph = import_graph()
    wrong = [
        f"{module} imports {dep}"
        for module, deps in graph.items()
        for dep in deps
        for importer, imported in AGAINST_THE_FLOW
        if (module == importer or module.startswith(importer + "."))
        and (dep == imported or dep.startswith(imported + "."))
    ]
    wrong += [
        f"{module} imports {dep} (only the command line and __main__ may)"
        for module, deps in graph.items()
        for dep in deps
        if dep.startswith("autograder.cli") and not module.startswith(("autograder.cli", "autograder.__main__"))
    ]
    assert not wrong, "imports against the flow:\n" + "\n".join(sorted(wrong))


def test_every_problem_set_is_its_notebook_and_a_package_of_question_modules():
    """A question is its notebook cells plus one module; points come from the grade cells only."""
    from autograder.spec import import_problem_set

    for folder in sorted(p for p in shipped_problem_sets().iterdir() if (p / "__init__.py").is_file()):
        assert (folder / f"{folder.name}.ipynb").is_file(), folder.name
        modules = [p.name for p in folder.glob("*.py") if p.name != "__init__.py"]
        assert modules, f"{folder.name}: no question modules"
        assert "questions.py" not in modules, f"{folder.name}: one catch-all questions.py instead of question modules"
        stated = [q.grade_id for q in import_problem_set(folder).ASSIGNMENT.questions if q.points is not None]
        assert not stated, f"{folder.name}: points stated in the spec, not only in the grade cells: {stated}"
