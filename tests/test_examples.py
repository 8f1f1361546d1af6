"""examples/: the CI workflow names real commands, the nbgrader and JupyterHub configs load and
work, and the Gradescope zip grades a real submission with its own run_autograder."""

import argparse
import json
import os
import re
import shlex
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import pytest

from autograder.cli.main import build_parser
from autograder.releasing.sample_submissions import make_samples
from autograder.spec import REPO_ROOT

EXAMPLES = REPO_ROOT / "examples"
BIN = Path(sys.executable).parent

# Gradescope's results.json (https://gradescope-autograders.readthedocs.io/en/latest/specs/)
VISIBILITY = {"enum": ["hidden", "after_due_date", "after_published", "visible"]}
FORMAT = {"enum": ["text", "html", "simple_format", "md", "ansi"]}
GRADESCOPE_SCHEMA = {
    "type": "object",
    "required": ["tests"],
    "additionalProperties": False,
    "properties": {
        "score": {"type": "number"},
        "execution_time": {"type": "number"},
        "output": {"type": "string"},
        "output_format": FORMAT,
        "test_output_format": FORMAT,
        "test_name_format": FORMAT,
        "visibility": VISIBILITY,
        "stdout_visibility": VISIBILITY,
        "extra_data": {"type": "object"},
        "leaderboard": {"type": "array"},
        "tests": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "score", "max_score", "output"],
                "additionalProperties": False,
                "properties": {
                    "score": {"type": "number"},
                    "max_score": {"type": "number"},
                    "status": {"enum": ["passed", "failed"]},
                    "name": {"type": "string"},
                    "name_format": FORMAT,
                    "number": {"type": "string"},
                    "output": {"type": "string"},
                    "output_format": FORMAT,
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "visibility": VISIBILITY,
                    "extra_data": {"type": "object"},
                },
            },
        },
    },
}


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


# ---------------------------------------------------------------- GitHub Actions


def load_workflow(path: Path) -> dict:
    try:
        import yaml
    except ImportError:  # a light check: the keys a workflow needs, no tabs
        text = path.read_text()
        assert "\t" not in text and re.search(r"^jobs:", text, re.M) and re.search(r"^on:", text, re.M)
        pytest.skip("PyYAML not installed: checked the workflow's shape only")
    return yaml.safe_load(path.read_text())


def test_github_workflow_runs_real_commands():
    wf = load_workflow(EXAMPLES / "github-actions-grade.yml")
    assert "workflow_dispatch" in wf.get("on", wf.get(True))  # PyYAML reads the key `on` as True
    (job,) = wf["jobs"].values()
    env = {k: "ps1" if k == "PS" else str(v) for k, v in job["env"].items()}
    steps = job["steps"]
    uses = [s["uses"].split("@")[0] for s in steps if "uses" in s]
    assert uses[0] == "actions/checkout" and "actions/upload-artifact" in uses
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact"))
    assert upload["with"]["path"] == env["OUT"]

    commands = subcommands()
    dev_text = (REPO_ROOT / "dev").read_text()
    called = []
    for step in steps:
        for line in step.get("run", "").splitlines():
            line = re.sub(r"\$(\w+)|\$\{(\w+)\}", lambda m: env.get(m[1] or m[2], "x"), line.strip())
            if line.startswith("./dev "):
                assert re.search(rf"^\s*{re.escape(line.split()[1])}\)", dev_text, re.M), line
            if ".venv/bin/autograder " in line:
                argv = shlex.split(line.split(".venv/bin/autograder ", 1)[1])
                assert argv[0] in commands, f"unknown subcommand in workflow: {line}"
                build_parser().parse_args(argv)  # every option exists (SystemExit otherwise)
                called.append(argv[0])
    assert {"grade", "report"} <= set(called)


# ---------------------------------------------------------------- nbgrader / JupyterHub


def load_py_config(name: str, env: dict | None = None):
    from traitlets.config.loader import PyFileConfigLoader

    old = dict(os.environ)
    os.environ.update(env or {})
    try:
        return PyFileConfigLoader(name, path=str(EXAMPLES)).load_config()
    finally:
        os.environ.clear()
        os.environ.update(old)


def test_nbgrader_config_loads_and_releases_the_kit(tmp_path):
    from nbgrader.apps import NbGraderApp

    course, exchange = tmp_path / "course", tmp_path / "exchange"
    course.mkdir()
    env = {"COURSE_ROOT": str(course), "AUTOGRADER_KIT": str(REPO_ROOT), "NBGRADER_EXCHANGE": str(exchange)}
    config = load_py_config("nbgrader_config.py", env)
    assert config.CourseDirectory.course_id == "transformers101"
    assert config.CourseDirectory.root == str(course)
    import nbgrader.exchange.default as default_exchange

    options: dict[str, set] = {}  # class name -> its options (abstract and default exchange alike)
    classes = NbGraderApp().all_configurable_classes()
    classes += [c for n in dir(default_exchange) if hasattr(c := getattr(default_exchange, n), "class_traits")]
    for cls in classes:
        options.setdefault(cls.__name__, set()).update(cls.class_traits(config=True))
    for section, values in config.items():
        assert section in options, f"{section} is not an nbgrader class"
        for key in values:
            assert key in options[section], f"{section}.{key} is not an option of nbgrader {section}"

    # nbgrader itself, with this file as the course config, hands out the kit's release
    (course / "nbgrader_config.py").write_text((EXAMPLES / "nbgrader_config.py").read_text())
    r = subprocess.run(
        [str(BIN / "nbgrader"), "release_assignment", "ps1_attention"],
        cwd=course,
        env={**os.environ, **env, "HOME": str(tmp_path), "PATH": f"{BIN}:{os.environ['PATH']}"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    released = exchange / "transformers101" / "outbound" / "ps1_attention" / "ps1_attention.ipynb"
    assert released.read_bytes() == (REPO_ROOT / "release" / "ps1_attention" / "ps1_attention.ipynb").read_bytes()


def test_jupyterhub_snippet_matches_the_course():
    hub = load_py_config("jupyterhub_config_snippet.py")
    course = load_py_config("nbgrader_config.py").CourseDirectory.course_id
    (service,) = hub.JupyterHub.services
    assert service["name"] == course and service["command"][0] == "jupyterhub-singleuser"
    assert f"formgrade-{course}" in hub.JupyterHub.load_groups
    assert any(f"access:services!service={course}" in role.get("scopes", []) for role in hub.JupyterHub.load_roles)
    # the note is about something true: the released notebook reads JUPYTERHUB_USER
    assert "JUPYTERHUB_USER" in (EXAMPLES / "jupyterhub_config_snippet.py").read_text()
    assert "JUPYTERHUB_USER" in (REPO_ROOT / "release" / "ps1_attention" / "ps1_attention.ipynb").read_text()


# ---------------------------------------------------------------- Gradescope


def unpack(zip_path: Path, dest: Path) -> None:
    """Like `unzip`, keeping the Unix modes stored in the zip."""
    with zipfile.ZipFile(zip_path) as zf:
        for info in zf.infolist():
            target = dest / info.filename
            zf.extract(info, dest)
            mode = info.external_attr >> 16 & 0o777
            if mode:
                target.chmod(mode)


def test_gradescope_zip_grades_a_submission(ps1, tmp_path):
    zip_path = tmp_path / "autograder.zip"
    r = subprocess.run(
        [sys.executable, "-m", "autograder", "gradescope-zip", "ps1", "--out", str(zip_path)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    names = zipfile.ZipFile(zip_path).namelist()
    assert {
        "setup.sh",
        "run_autograder",
        "kit/pyproject.toml",
        "kit/release/ps1_attention/ps1_attention.ipynb",
        "kit/source/ps1_attention/sdpa.py",
    } <= set(names)
    assert not [n for n in names if "ps5_" in n or "__pycache__" in n or n.endswith(".pyc")]

    root = tmp_path / "autograder"  # Gradescope's layout: source/ (the zip), submission/, results/
    unpack(zip_path, root / "source")
    for script in ("setup.sh", "run_autograder"):
        path = root / "source" / script
        assert path.stat().st_mode & stat.S_IXUSR, f"{script} is not executable"
        assert subprocess.run(["bash", "-n", str(path)]).returncode == 0
    make_samples(tmp_path / "samples")
    (root / "submission").mkdir()
    (root / "results").mkdir()
    (tmp_path / "samples" / "alice" / ps1.name / ps1.notebook).rename(root / "submission" / ps1.notebook)
    (root / "submission_metadata.json").write_text(
        json.dumps({"users": [{"email": "alice@example.edu", "name": "Alice", "sid": "alice"}]})
    )
    env = {
        **os.environ,
        "AUTOGRADER_ROOT": str(root),
        "AUTOGRADER_PYTHON": sys.executable,
        "AUTOGRADER_STUDENT_FIELD": "sid",
    }
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("AUTOGRADER_STUDENT", None)
    r = subprocess.run(
        [str(root / "source" / "run_autograder")], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, r.stdout + r.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    jsonschema.validate(results, GRADESCOPE_SCHEMA)
    assert results["score"] == ps1.max_score
    assert len(results["tests"]) == len(ps1.questions)
    assert sum(t["score"] for t in results["tests"]) == sum(t["max_score"] for t in results["tests"]) == ps1.max_score
    assert all(t["status"] == "passed" for t in results["tests"])
    # it ran the zip's own kit, which wrote its bytecode there
    assert list((root / "source" / "kit" / "autograder" / "cli").glob("__pycache__/gradescope*.pyc"))


def test_gradescope_run_without_a_notebook_scores_zero(ps1, tmp_path, monkeypatch):
    from autograder.cli.gradescope import run_autograder as run

    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "answers.txt").write_text("I forgot the notebook")
    monkeypatch.setenv("AUTOGRADER_STUDENT", "zoe")
    rc = run(
        [
            "ps1",
            "--submission",
            str(tmp_path / "submission"),
            "--results",
            str(tmp_path / "results"),
            "--metadata",
            str(tmp_path / "missing.json"),
        ]
    )
    assert rc == 0
    results = json.loads((tmp_path / "results" / "results.json").read_text())
    jsonschema.validate(results, GRADESCOPE_SCHEMA)
    assert results["score"] == 0 and len(results["tests"]) == len(ps1.questions)
    assert all(ps1.notebook in t["output"] and t["status"] == "failed" for t in results["tests"])
