"""make grade's entry point on a class of made-up submissions: right, wrong, partial, broken and hostile.

Each hostile kind must earn no point it did not earn, leave source/, the gradebook and the other students'
results unchanged, and be named in the report. Needs root (the sandbox); CI runs as root.
"""

import hashlib
import json
import os
import shutil
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from grading import record
from grading.__main__ import main as grade_main
from grading.export import raw_scores
from grading.prepare import executable_notebook, nbgrader_meta
from grading.sandbox import Limits

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the grading sandbox is set up as root")
QUIZ, DRILLS = 12, 10  # automatic points of savollar and xatolar


def notebook(kind: str, name: str):
    return nbformat.read(ROOT / kind / "multihead" / f"{name}.ipynb", as_version=4)


def cell(nb, grade_id):
    return next(c for c in nb.cells if nbgrader_meta(c).get("grade_id") == grade_id)


def answered(name: str, **changes):
    """The solution notebook with some answer cells rewritten (grade_id with '_' for '-')."""
    nb = notebook("source", name)
    for grade_id, source in changes.items():
        cell(nb, grade_id.replace("_", "-")).source = source
    return nb


def tree_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return digest.hexdigest()


def submissions(course: Path) -> dict[str, dict]:
    """student -> {file name: notebook node or raw text}, and the points each must get."""
    root = str(course)
    hostile_files = (
        "import os\n"
        f"for p in ['{root}/gradebook.db', '../../../../gradebook.db']:\n"
        "    try:\n        open(p, 'w').close()\n    except OSError:\n        pass\n"
        "try:\n"
        f"    open('{root}/source/multihead/evil.txt', 'w').write('x')\n"
        "except OSError:\n    pass\n"
        "try:\n"
        f"    open('{root}/source/multihead/savollar.ipynb').read()\n    javob_01 = 64 // 8\n"
        "except OSError:\n    javob_01 = 0\n"
    )
    transformer = (
        "ip = get_ipython()\n"
        "ip.input_transformers_cleanup.append(\n"
        "    lambda lines: ['pass\\n'] if any('tekshir' in l or 'tk.' in l for l in lines) else lines)\n"
        "javob_01 = 3\n"
    )
    patched = (
        "import numpy.testing, torch, torch.testing\n"
        "numpy.testing.assert_allclose = lambda *a, **k: None\n"
        "torch.testing.assert_close = lambda *a, **k: None\n"
        "torch.allclose = lambda *a, **k: True\n"
        "torch.equal = lambda *a, **k: True\n"
        "def boshlarga_bol(x, h):\n"
        "    B, n, d = x.shape\n"
        "    return x.view(B, h, n, d // h)\n"
    )
    rigged = ("class Hammasi:\n    def __eq__(self, other):\n        return True\n"
              "    def __iter__(self):\n        return iter((4, 8, 10, 8))\n    def __len__(self):\n        return 4\n"
              "javob_02 = Hammasi()\n")
    poison = (  # a stream output whose text is a list (valid nbformat) in every test cell
        "def _zahar(info):\n"
        "    if 'tekshir' in (info.raw_cell or '') or 'tk.' in (info.raw_cell or ''):\n"
        "        k = get_ipython().kernel\n"
        "        k.session.send(k.iopub_socket, 'stream', {'name': 'stdout', 'text': ['x\\n']},\n"
        "                       parent=k.get_parent('shell'), ident=b'stream.stdout')\n"
        "get_ipython().events.register('pre_run_cell', _zahar)\n"
        "javob_01 = 8\n"
    )
    script = ("from IPython.display import HTML, display\n"
              "display(HTML('<script>alert(\"feedback\")</script><img src=x onerror=alert(1)>'))\njavob_01 = 8\n")
    leak = ("\ndef _sizdir(info):\n"
            "    print('SIZDI:', info.raw_cell)\n"
            "get_ipython().events.register('pre_run_cell', _sizdir)\n")
    duplicated = notebook("source", "savollar")
    duplicated.cells.insert(3, nbformat.from_dict(json.loads(json.dumps(cell(duplicated, "test-01")))))
    cell(duplicated, "test-02").metadata.nbgrader["points"] = 100
    cell(duplicated, "javob-03").metadata.nbgrader.update(grade=True, points=50)
    duplicated.cells.remove(cell(duplicated, "test-04"))
    duplicated.metadata["kernelspec"] = {"name": "boshqa", "display_name": "boshqa", "language": "python"}
    return {
        "togri": {"files": {"savollar.ipynb": notebook("source", "savollar"),
                            "xatolar.ipynb": notebook("source", "xatolar")}, "points": QUIZ + DRILLS},
        "bosh": {"files": {"savollar.ipynb": notebook("release", "savollar"),
                           "xatolar.ipynb": notebook("release", "xatolar")}, "points": 0},
        "fayl_hujumi": {"files": {"savollar.ipynb": answered("savollar", javob_01=hostile_files)},
                        "points": QUIZ - 1},
        "transformer": {"files": {"savollar.ipynb": answered(
            "savollar", javob_01=transformer, **{f"javob_{i:02d}": f"javob_{i:02d} = 0" for i in range(2, 13)})},
            "points": 0},
        "numpy_yamoq": {"files": {"xatolar.ipynb": answered("xatolar", xato_1=patched)},
                        "points": DRILLS - 2},
        "soxta_eq": {"files": {"savollar.ipynb": answered("savollar", javob_02=rigged)}, "points": QUIZ - 1},
        "yadro_olimi": {"files": {"savollar.ipynb": answered(
            "savollar", javob_05="javob_05 = (192, 64)\nimport os\nos._exit(1)")}, "points": 4},
        "cheksiz": {"files": {"savollar.ipynb": answered("savollar", javob_03="while True:\n    pass")},
                    "points": 2},
        "katta_chiqish": {"files": {"savollar.ipynb": answered(
            "savollar", javob_01="print('x' * 5_000_000)\njavob_01 = 8")}, "points": QUIZ},
        "xotira": {"files": {"savollar.ipynb": answered(
            "savollar", javob_01="blok = bytearray(40 << 30)\njavob_01 = 8")}, "points": QUIZ - 1},
        "dublikat": {"files": {"savollar.ipynb": duplicated}, "points": QUIZ},
        "buzilgan": {"files": {"savollar.ipynb": "{ bu json emas",
                               "xatolar.ipynb": notebook("source", "xatolar")}, "points": DRILLS},
        "zaharli_chiqish": {"files": {"savollar.ipynb": answered("savollar", javob_01=poison)}, "points": QUIZ},
        "html_skript": {"files": {"savollar.ipynb": answered("savollar", javob_01=script)}, "points": QUIZ},
        "sizdiruvchi": {"files": {"xatolar.ipynb": answered(
            "xatolar", xato_1=cell(notebook("source", "xatolar"), "xato-1").source + leak)}, "points": DRILLS},
        "numpy_fayl": {"files": {"savollar.ipynb": notebook("source", "savollar"),
                                 "numpy.py": "raise SystemExit('hijacked')\n"}, "points": QUIZ},
    }


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = tmp_path_factory.mktemp("kurs")
    for item in ("nbgrader_config.py", "source", "release"):
        src = ROOT / item
        (shutil.copytree if src.is_dir() else shutil.copy)(src, course / item)
    plan = submissions(course)
    for student, spec in plan.items():
        folder = course / "submitted" / student / "multihead"
        folder.mkdir(parents=True)
        for name, content in spec["files"].items():
            if isinstance(content, str):
                (folder / name).write_text(content, encoding="utf-8")
            else:
                nbformat.write(content, folder / name)
    source_before = tree_digest(course / "source")
    assert grade_main(["--root", str(course), "--cell-timeout", "10"]) == 0
    return course, plan, source_before


def scores(course: Path) -> dict[str, float]:
    return raw_scores(course / "build" / "grades.csv")


def test_every_submission_gets_exactly_what_it_earned(graded):
    course, plan, _ = graded
    got = scores(course)
    expected = {student: float(spec["points"]) for student, spec in plan.items()}
    assert got == expected


def test_course_files_are_untouched(graded):
    course, _, source_before = graded
    assert tree_digest(course / "source") == source_before
    assert not (course / "source" / "multihead" / "evil.txt").exists()
    assert (course / "gradebook.db").stat().st_size > 10_000


def test_report_names_the_problems(graded):
    course, _, _ = graded
    report = (course / "build" / "grading" / "report.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip(): line for line in report.splitlines() if line.startswith("| ")}
    assert "numpy.py" in rows["numpy_fayl"]
    assert "buzilgan" in rows["buzilgan"] and "o'qib bo'lmadi" in rows["buzilgan"]
    assert "to'xtab qoldi" in rows["yadro_olimi"]
    assert "soniyadan ko'p" in rows["cheksiz"]
    assert "juda katta" in rows["katta_chiqish"]
    assert "2 marta" in rows["dublikat"] and "javob katagi topilmadi" not in rows["dublikat"]
    assert "buzish belgisi" in rows["transformer"]
    assert "bajarilmadi" in rows["bosh"]
    assert (course / "build" / "grading" / "savollar.png").stat().st_size > 5_000


def test_feedback_is_uzbek_and_hides_the_tests(graded):
    course, _, _ = graded
    page = (course / "feedback" / "togri" / "multihead" / "xatolar.html").read_text(encoding="utf-8")
    assert "Ball:" in page and "Score:" not in page
    assert "BEGIN HIDDEN TESTS" not in page and "manual_seed(101)" not in page
    assert "KURS-NATIJA" not in page
    leaked = (course / "feedback" / "sizdiruvchi" / "multihead" / "xatolar.html").read_text(encoding="utf-8")
    assert "SIZDI: tk.xato" not in leaked and "manual_seed(101)" not in leaked and "HIDDEN TESTS" not in leaked
    scripted = (course / "feedback" / "html_skript" / "multihead" / "savollar.html").read_text(encoding="utf-8")
    assert "<script>alert" not in scripted and "<img src=x" not in scripted   # shown escaped, as text


def test_regrading_one_student_changes_nothing_else(graded):
    course, _, _ = graded
    before = {s: tree_digest(course / "autograded" / s) for s in ("bosh", "dublikat")}
    grades_before = scores(course)
    assert grade_main(["--root", str(course), "--student", "bosh"]) == 0
    assert scores(course) == grades_before
    assert {s: tree_digest(course / "autograded" / s) for s in before} == before


def test_answers_cannot_change_structure():
    release, source = notebook("release", "savollar"), notebook("source", "savollar")
    student = notebook("release", "savollar")
    cell(student, "test-01").source = "pass"
    cell(student, "test-01").metadata.nbgrader["points"] = 99
    built, problems = executable_notebook(release, source, student)
    assert cell(built, "test-01").source == cell(source, "test-01").source
    assert cell(built, "test-01").metadata.nbgrader["points"] == 1
    assert problems == []


def test_a_crash_midway_keeps_the_previous_gradebook(tmp_path, monkeypatch):
    for item in ("nbgrader_config.py", "source", "release"):
        src = ROOT / item
        (shutil.copytree if src.is_dir() else shutil.copy)(src, tmp_path / item)
    (tmp_path / "gradebook.db").write_bytes(b"previous gradebook")
    staging = tmp_path / "staging"
    staging.mkdir()

    def crash(*args, **kwargs):
        raise RuntimeError("simulated crash")

    monkeypatch.setattr(record, "run_converter", crash)
    with pytest.raises(RuntimeError, match="simulated"):
        record.record_and_publish(tmp_path, "multihead", ["x"], staging, tmp_path / "build")
    assert (tmp_path / "gradebook.db").read_bytes() == b"previous gradebook"


def test_refuses_without_a_sandbox(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr("grading.autograde.unavailable_reason", lambda: "no namespaces here")
    assert grade_main(["--root", str(tmp_path)]) == 2
    assert "--unsafe-no-sandbox" in capsys.readouterr().err


def test_a_broken_sandbox_stops_the_run_and_changes_nothing(tmp_path, monkeypatch, capsys):
    """Kernels that cannot start are the grader's failure: exit 2, no zeros recorded, gradebook unchanged."""
    for item in ("nbgrader_config.py", "source", "release"):
        src = ROOT / item
        (shutil.copytree if src.is_dir() else shutil.copy)(src, tmp_path / item)
    folder = tmp_path / "submitted" / "talaba" / "multihead"
    folder.mkdir(parents=True)
    nbformat.write(notebook("source", "savollar"), folder / "savollar.ipynb")
    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}") as gradebook:
        gradebook.add_student("oldingi")
    before = (tmp_path / "gradebook.db").read_bytes()
    monkeypatch.setattr("grading.execute.Limits", lambda: Limits(RLIMIT_AS=1 << 20))
    assert grade_main(["--root", str(tmp_path)]) == 2
    assert "sandbox ishlamadi" in capsys.readouterr().err
    assert (tmp_path / "gradebook.db").read_bytes() == before
    assert not (tmp_path / "autograded").exists() and not (tmp_path / "build" / "grades.csv").exists()


def test_a_damaged_gradebook_is_named_and_kept(tmp_path, capsys):
    for item in ("nbgrader_config.py", "source", "release"):
        src = ROOT / item
        (shutil.copytree if src.is_dir() else shutil.copy)(src, tmp_path / item)
    (tmp_path / "submitted" / "talaba" / "multihead").mkdir(parents=True)
    (tmp_path / "gradebook.db").write_bytes(b"bu SQLite emas")
    assert grade_main(["--root", str(tmp_path)]) == 2
    assert "gradebook.db" in capsys.readouterr().err
    assert (tmp_path / "gradebook.db").read_bytes() == b"bu SQLite emas"
