"""The repository itself: pinned environment in one source, clean notebooks, no generated files."""

import json
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted(ROOT.glob("notebooks/*.ipynb")) + sorted(ROOT.glob("source/**/*.ipynb"))
LESSONS = sorted(ROOT.glob("notebooks/[0-9][0-9]_*.ipynb"))


def requirement_pins(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[name.strip().lower().replace("_", "-")] = version.strip()
    return pins


def test_lock_pins_every_package_exactly():
    pins = requirement_pins(ROOT / "requirements.txt")
    assert len(pins) > 50
    loose = [name for name, version in pins.items() if not re.fullmatch(r"[0-9][0-9A-Za-z.+-]*", version)]
    assert not loose, f"not pinned with ==: {loose}"
    assert pins["torch"] == "2.13.0", "torch must stay on the CPU wheel these machines carry"


def test_lock_agrees_with_top_level_list():
    top = requirement_pins(ROOT / "requirements.in")
    lock = requirement_pins(ROOT / "requirements.txt")
    missing = sorted(set(top) - set(lock))
    assert not missing, f"in requirements.in but not locked (run make lock): {missing}"
    differ = {n: (v, lock[n]) for n, v in top.items() if v and v != lock[n]}
    assert not differ, f"requirements.in pins differ from the lock (run make lock): {differ}"


def test_conda_environment_reads_the_lock():
    text = (ROOT / "environment.yml").read_text()
    assert re.search(r"^\s*- python=3\.11\s*$", text, re.M)
    assert re.search(r"^\s*- -r requirements\.txt\s*$", text, re.M), "environment.yml must install the lock"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_notebook_committed_without_outputs(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    dirty = [i for i, c in enumerate(nb["cells"]) if c.get("outputs") or c.get("execution_count")]
    assert not dirty, f"cells {dirty} carry outputs or execution counts; clear them before committing"
    assert "papermill" not in nb["metadata"], "papermill metadata left in a committed notebook"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_lesson_has_title_and_one_parameters_cell(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    first = nb["cells"][0]
    assert first["cell_type"] == "markdown" and "".join(first["source"]).startswith("# ")
    tagged = [c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1, "exactly one papermill 'parameters' cell"
    assert re.search(r"^TEZ = False\b", "".join(tagged[0]["source"]), re.M), "TEZ = False is the default"


def test_lessons_exist():
    names = [p.stem for p in LESSONS]
    assert names[:1] == ["01_attention_asoslari"], names


def test_no_generated_files_tracked():
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    bad = [f for f in tracked.stdout.splitlines()
           if re.match(r"(build|\.venv|submitted|feedback)/|.*rasmlar/|.*\.db$|.*\.pyc$", f)
           or (f.startswith("autograded/") and f != "autograded/README.md")]
    assert not bad, f"generated files are tracked: {bad}"
