"""The `multihead` assignment end to end, through nbgrader's own commands on a temporary copy of the course.

One class of made-up students is autograded in a single `nbgrader autograde` run (kernels start once per
notebook, so batching them is what keeps this fast):
- yechim: the source notebooks (solutions) -> every automatic point;
- bosh: the released notebooks untouched -> 0, graded without errors;
- xato_0..2: the source with a typical wrong answer in every third item -> 0 on exactly those items;
- boshqa: other correct forms (list, torch.Size, numpy int, 8 ** 0.5, option text with other
  apostrophes, other drill repairs, noisy stderr) -> every automatic point;
- hiyla: objects with a rigged __eq__ and tensor subclasses -> 0 on those items.
Then the feedback HTML is checked for hidden tests and answers, and the release for answers.
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from test_assignment_key import ANSWERS

from grading import tekshiruv as tk
from grading.release import differences, generate, nbgrader_env

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENT = "multihead"
NOTEBOOKS = ("savollar", "xatolar")
QUESTIONS = [f"{i:02d}" for i in range(1, 13)]
DRILLS = [str(i) for i in range(1, 6)]

# item -> (notebook, answer cell, test cell, points)
ITEMS = {f"q{q}": ("savollar", f"javob-{q}", f"test-{q}", 1.0) for q in QUESTIONS}
ITEMS |= {f"x{n}": ("xatolar", f"xato-{n}", f"test-xato-{n}", 2.0) for n in DRILLS}
MANUAL = {"nega-11": "savollar", "nega-12": "savollar"}
AUTO_TOTAL = sum(p for *_, p in ITEMS.values())


def _literal(value) -> str:
    return repr(value.upper()) if isinstance(value, str) else repr(value)


# Typical wrong answer per question: the first common mistake listed in the key (the one with a hint).
WRONG_QUESTION = {q: f"javob_{q} = {_literal(next(iter(ANSWERS[q][1])))}" for q in QUESTIONS}

# Correct answers in other forms than the source's.
OTHER_FORMS = {
    "q01": "import numpy as np\n\njavob_01 = np.int64(8)",
    "q02": "javob_02 = [4, 8, 10, 8]",
    "q03": "javob_03 = torch.empty(4, 8, 10, 10).shape",
    "q04": "javob_04 = [16640, 4 * 64 * 65]",
    "q05": "javob_05 = nn.MultiheadAttention(64, 8).in_proj_weight.shape",
    "q06": "X = torch.randn(4, 10, 64)\njavob_06 = nn.MultiheadAttention(64, 8, batch_first=True)(X, X, X)[1].shape",
    "q07": "javob_07 = 8 ** 0.5",
    "q08": "javob_08 = [1.0, 8]",
    "q09": 'javob_09 = " b) "',
    "q10": "javob_10 = [torch.Size([2, 5, 64]), [2, 5, 9]]",
    "q11": f"javob_11 = {tk.VARIANTLAR['11']['d'].replace(chr(39), chr(0x2BB)).upper()!r}",
    "q12": 'javob_12 = "a"',
    "x1": '''
import sys
import warnings


def boshlarga_bol(x, h):
    warnings.warn("shovqin: stderr ga yoziladi", UserWarning, stacklevel=1)
    print("shovqin", file=sys.stderr)
    return torch.stack(x.chunk(h, dim=-1), dim=1)
''',
    "x2": "def boshlarni_ula(O):\n    return torch.cat(O.unbind(1), dim=-1)",
    "x3": "def yarat_mha(d_model, h):\n    m = nn.MultiheadAttention(d_model, h)\n    m.batch_first = True\n"
          "    return m",
    "x4": 'def pad_maska(X_ids, PAD):\n    return torch.zeros(X_ids.shape).masked_fill(X_ids == PAD, float("-inf"))',
    "x5": '''
import torch.nn.functional as F


def bosh_ogirliklari(mha, x):
    B, n, d = x.shape
    h = mha.num_heads
    q, k, _ = F.linear(x, mha.in_proj_weight, mha.in_proj_bias).chunk(3, dim=-1)
    q = q.view(B, n, h, d // h).transpose(1, 2)
    k = k.view(B, n, h, d // h).transpose(1, 2)
    return torch.softmax(q @ k.transpose(-2, -1) / (d // h) ** 0.5, dim=-1)
''',
}

# Right content inside objects that try to win a comparison.
RIGGED = {
    "q01": "class Yolgon(int):\n    def __eq__(self, other):\n        return True\n\n"
           "    __hash__ = int.__hash__\n\n\njavob_01 = Yolgon(3)",
    "q02": "class Hammasi(tuple):\n    def __eq__(self, other):\n        return True\n\n"
           "    __hash__ = tuple.__hash__\n\n\njavob_02 = Hammasi((4, 8, 10, 8))",
    "x2": "class T(torch.Tensor):\n    def __eq__(self, other):\n        return True\n\n\n"
          "def boshlarni_ula(O):\n    B, h, n, d_k = O.shape\n"
          "    return O.transpose(1, 2).reshape(B, n, h * d_k).as_subclass(T)",
}

# Plain textual forms of each answer: none may appear in the released files.
ANSWER_FORMS = {
    "q01": ["javob_01 = 8", "javob_01 = 64 // 8"],
    "q02": ["(4, 8, 10, 8)", "[4, 8, 10, 8]"],
    "q03": ["(4, 8, 10, 10)", "[4, 8, 10, 10]"],
    "q04": ["16640"],
    "q05": ["(192, 64)", "[192, 64]", "192"],
    "q06": ["(4, 10, 10)", "[4, 10, 10]"],
    "q07": ["2.83", "2.828", "sqrt(8)", "8 ** 0.5", "8**0.5", "2 * math.sqrt(2)"],
    "q08": ["(1, 8)", "[1, 8]", "(1.0, 8.0)", "[1.0, 8.0]"],
    "q09": ["javob_09 = 'b'", 'javob_09 = "b"'],
    "q10": ["(2, 5, 9)", "[2, 5, 9]"],
    "q11": ["javob_11 = 'd'", 'javob_11 = "d"'],
    "q12": ["javob_12 = 'a'", 'javob_12 = "a"'],
    "x1": ["view(B, n, h, d_k)", ".transpose(1, 2)"],
    "x2": [".transpose(1, 2).reshape"],
    "x3": ["batch_first=True"],
    "x4": ["X_ids == PAD", "X_ids.eq(PAD)"],
    "x5": ["average_attn_weights=False"],
}


def run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "nbgrader", *cmd], cwd=cwd, env=nbgrader_env(cwd),
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"nbgrader {' '.join(cmd)} failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    return done


def read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def set_cell(nb: nbformat.NotebookNode, grade_id: str, source: str) -> None:
    [cell] = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id]
    cell.source = source.strip("\n")


def buggy_drill(release_nb: nbformat.NotebookNode, grade_id: str) -> str:
    """The seed's buggy code, live: the released drill cell without the stub lines."""
    [cell] = [c for c in release_nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id]
    return "\n".join(line for line in cell.source.splitlines()
                     if "raise NotImplementedError" not in line and "SHU YERGA YOZING" not in line)


def wrong_answer(item: str, release: dict) -> str:
    notebook, answer_id, *_ = ITEMS[item]
    return WRONG_QUESTION[item[1:]] if item.startswith("q") else buggy_drill(release[notebook], answer_id)


@dataclass
class Class:
    courses: dict[str, Path]  # student -> the course copy that graded them
    students: dict[str, set[str]]  # student -> items expected to score 0
    scores: dict[str, dict[str, tuple[float | None, bool]]]  # student -> grade_id -> (score, needs manual)


def make_students() -> dict[str, tuple[dict, set[str]]]:
    source = {nb: read(ROOT / "source" / ASSIGNMENT / f"{nb}.ipynb") for nb in NOTEBOOKS}
    release = {nb: read(ROOT / "release" / ASSIGNMENT / f"{nb}.ipynb") for nb in NOTEBOOKS}

    def copy(nbs):
        return {k: nbformat.from_dict(v) for k, v in nbs.items()}

    students = {"yechim": (copy(source), set()), "bosh": (copy(release), set(ITEMS))}
    for k in range(2):
        nbs, wrong = copy(source), set(list(ITEMS)[k::2])
        for item in wrong:
            set_cell(nbs[ITEMS[item][0]], ITEMS[item][1], wrong_answer(item, release))
        students[f"xato_{k}"] = (nbs, wrong)
    for name, answers, zero in [("boshqa", OTHER_FORMS, set()), ("hiyla", RIGGED, set(RIGGED))]:
        nbs = copy(source)
        for item, src in answers.items():
            set_cell(nbs[ITEMS[item][0]], ITEMS[item][1], src)
        students[name] = (nbs, zero)
    return students


def grade_course(course: Path, students: dict[str, tuple[dict, set[str]]]) -> dict:
    """generate_assignment (the same call `make release` makes), then autograde and feedback for the class."""
    shutil.copy(ROOT / "nbgrader_config.py", course)
    shutil.copytree(ROOT / "source" / ASSIGNMENT, course / "source" / ASSIGNMENT)
    generate(course, ASSIGNMENT, course / "release", db=course / "gradebook.db")
    for student, (nbs, _) in students.items():
        folder = course / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        for name, nb in nbs.items():
            nbformat.write(nb, folder / f"{name}.ipynb")
    run(["autograde", ASSIGNMENT, "--create"], course)
    run(["generate_feedback", ASSIGNMENT], course)

    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        return {student: {g.name: (g.score, g.needs_manual_grade)
                          for nb in gb.find_submission(ASSIGNMENT, student).notebooks for g in nb.grades}
                for student in students}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> Class:
    """Two course copies graded at once (nbgrader grades serially; each kernel mostly waits on torch import)."""
    students = make_students()
    halves = [["yechim", "xato_0", "hiyla"], ["bosh", "xato_1", "boshqa"]]
    courses = [tmp_path_factory.mktemp(f"kurs{i}") for i in range(len(halves))]
    with ThreadPoolExecutor(len(halves)) as pool:
        results = list(pool.map(lambda ch: grade_course(ch[0], {s: students[s] for s in ch[1]}),
                                zip(courses, halves, strict=True)))
    scores = {k: v for r in results for k, v in r.items()}
    where = {s: c for c, half in zip(courses, halves, strict=True) for s in half}
    return Class(where, {s: z for s, (_, z) in students.items()}, scores)


def auto_score(graded: Class, student: str, item: str) -> float:
    score, _ = graded.scores[student][ITEMS[item][2]]
    return score


def test_release_in_repository_is_what_make_release_generates_from_source(graded):
    for course in set(graded.courses.values()):
        assert differences(course / "release" / ASSIGNMENT, ROOT / "release" / ASSIGNMENT) == []


def test_release_check_mode_reports_a_stale_release(tmp_path, monkeypatch, capsys):
    """`--check` compares a fresh release with release/ and writes nothing (nbgrader itself is run above)."""
    from grading import release

    def fresh_release(root, assignment, out_dir, db=None):
        shutil.copytree(ROOT / "release" / assignment, out_dir / assignment)
        return out_dir / assignment

    monkeypatch.setattr(release, "generate", fresh_release)
    shutil.copytree(ROOT / "release" / ASSIGNMENT, tmp_path / "release" / ASSIGNMENT)
    assert release.main(["--root", str(tmp_path), "--check"]) == 0
    stale = tmp_path / "release" / ASSIGNMENT / "xatolar.ipynb"
    stale.write_text(stale.read_text(encoding="utf-8") + " ", encoding="utf-8")
    assert release.main(["--root", str(tmp_path), "--check"]) == 1
    assert "xatolar.ipynb" in capsys.readouterr().out
    assert stale.read_text(encoding="utf-8").endswith(" ")
    assert release.main(["--root", str(tmp_path)]) == 0
    assert differences(tmp_path / "release" / ASSIGNMENT, ROOT / "release" / ASSIGNMENT) == []


def test_source_scores_every_automatic_point(graded):
    for item, (*_, points) in ITEMS.items():
        assert auto_score(graded, "yechim", item) == points, item
    for grade_id in MANUAL:
        assert graded.scores["yechim"][grade_id][1], f"{grade_id} should wait for manual grading"


def test_untouched_release_scores_zero(graded):
    assert {g: s for g, (s, _) in graded.scores["bosh"].items() if s != 0} == {}
    assert not any(manual for _, manual in graded.scores["bosh"].values())


@pytest.mark.parametrize("student", ["xato_0", "xato_1", "boshqa", "hiyla"])
def test_each_item_scores_alone(graded, student):
    zero = graded.students[student]
    got = {item: auto_score(graded, student, item) for item in ITEMS}
    want = {item: 0.0 if item in zero else points for item, (*_, points) in ITEMS.items()}
    assert got == want


def test_every_item_has_a_wrong_answer_that_scores_zero(graded):
    covered = set().union(*(graded.students[f"xato_{k}"] for k in range(2)))
    assert covered == set(ITEMS)


def visible_output(nb: nbformat.NotebookNode, grade_id: str) -> str:
    [cell] = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id]
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def test_visible_checks_say_right_or_wrong_in_uzbek(graded):
    for student in ["yechim", "xato_0", "xato_1"]:
        folder = graded.courses[student] / "autograded" / student / ASSIGNMENT
        nbs = {nb: read(folder / f"{nb}.ipynb") for nb in NOTEBOOKS}
        for item, (nb, _, test_id, _) in ITEMS.items():
            text = visible_output(nbs[nb], test_id)
            if item in graded.students[student]:
                assert "❌" in text and "Maslahat:" in text, (student, item, text)
            else:
                assert "✅ To'g'ri" in text, (student, item, text)


def html_text(path: Path) -> str:
    body = path.read_text(encoding="utf-8")
    body = re.sub(r"<style.*?</style>|<script.*?</script>", " ", body, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", body))


def hidden_lines() -> list[str]:
    lines = []
    for nb in NOTEBOOKS:
        for cell in read(ROOT / "source" / ASSIGNMENT / f"{nb}.ipynb").cells:
            inside = False
            for line in cell.source.splitlines():
                if "BEGIN HIDDEN TESTS" in line:
                    inside = True
                elif "END HIDDEN TESTS" in line:
                    inside = False
                elif inside and len(line.strip()) >= 12:
                    lines.append(line.strip())
    return lines


def contains_form(text: str, form: str) -> bool:
    """Case-insensitive; a bare number must stand alone (not inside a hash or a longer number)."""
    pattern = re.escape(form.lower())
    if re.fullmatch(r"[\d.]+", form):
        pattern = rf"(?<![0-9a-f.]){pattern}(?![0-9a-f])"
    return re.search(pattern, text.lower()) is not None


@pytest.mark.parametrize("student", ["bosh", "xato_0", "xato_1", "hiyla"])
def test_feedback_shows_no_hidden_test(graded, student):
    secret = hidden_lines()
    assert len(secret) > 40
    for nb in NOTEBOOKS:
        text = html_text(graded.courses[student] / "feedback" / student / ASSIGNMENT / f"{nb}.html")
        assert "HIDDEN TESTS" not in text and tk.MARKER not in text and "Traceback" not in text
        assert [line for line in secret if line in text] == []


def test_feedback_of_the_blank_release_contains_no_answer(graded):
    for nb in NOTEBOOKS:
        text = html_text(graded.courses["bosh"] / "feedback" / "bosh" / ASSIGNMENT / f"{nb}.html")
        assert "Score: 0.0" in text
        for item, forms in ANSWER_FORMS.items():
            if item.startswith("q") or nb == "xatolar":
                assert [f for f in forms if contains_form(text, f)] == [], (nb, item)


def test_feedback_on_a_wrong_answer_does_not_reveal_the_right_one(graded):
    for student in ["xato_0", "xato_1"]:
        folder = graded.courses[student] / "autograded" / student / ASSIGNMENT
        nbs = {nb: read(folder / f"{nb}.ipynb") for nb in NOTEBOOKS}
        for item in graded.students[student]:
            nb, _, test_id, _ = ITEMS[item]
            text = visible_output(nbs[nb], test_id)
            assert [f for f in ANSWER_FORMS[item] if contains_form(text, f)] == [], (student, item, text)


def test_released_files_contain_no_answer():
    files = sorted((ROOT / "release" / ASSIGNMENT).glob("*.ipynb"))
    assert [f.stem for f in files] == sorted(NOTEBOOKS)
    text = {f.stem: f.read_text(encoding="utf-8") for f in files}
    for item, forms in ANSWER_FORMS.items():
        where = [text["xatolar"]] if item.startswith("x") else list(text.values())
        found = [f for f in forms for t in where if contains_form(t, f)]
        assert found == [], item
    assert "HIDDEN TESTS" not in "".join(text.values()) and "BEGIN SOLUTION" not in "".join(text.values())


def test_the_checking_module_contains_no_answer():
    text = (ROOT / "grading" / "tekshiruv.py").read_text(encoding="utf-8")
    for item, forms in ANSWER_FORMS.items():
        if item.startswith("q") and item not in ("q09", "q11", "q12"):
            assert [f for f in forms if contains_form(text, f)] == [], item


def test_hidden_tests_print_one_record_per_check(graded):
    nb = read(graded.courses["yechim"] / "autograded" / "yechim" / ASSIGNMENT / "savollar.ipynb")
    records = [line for c in nb.cells if c.cell_type == "code" for o in c.outputs
               if o.output_type == "stream" for line in o.text.splitlines() if line.startswith(tk.MARKER)]
    assert len(records) == len(QUESTIONS)
    assert records[0] == tk.MARKER + ' {"id":"test-01","qiymat":8}'


def cell_records(nb: nbformat.NotebookNode) -> dict[str, list[str]]:
    return {c.metadata["nbgrader"]["grade_id"]: [
        line for o in c.outputs if o.output_type == "stream" for line in o.text.splitlines()
        if line.startswith(tk.MARKER)]
        for c in nb.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade")}


def test_records_recheck_outside_the_kernel_agrees_with_the_grades(graded):
    """The record lines let a grader outside the kernel (issue 6) re-check: same verdict as the hidden tests."""
    def nbs(student):
        folder = graded.courses[student] / "autograded" / student / ASSIGNMENT
        return {nb: cell_records(read(folder / f"{nb}.ipynb")) for nb in NOTEBOOKS}

    reference = nbs("yechim")
    for student in ["boshqa", "xato_0", "xato_1", "hiyla", "bosh"]:
        got = nbs(student)
        for item, (nb, _, test_id, _) in ITEMS.items():
            agrees = tk.records_match(reference[nb][test_id], got[nb][test_id])
            assert agrees == (item not in graded.students[student]), (student, item)


def test_records_match_tolerates_float_noise_only():
    line = tk.MARKER + ' {"id":"t","qiymat":{"shakl":[2],"sonlar":[0.12345,1.0]}}'
    assert tk.records_match([line], [line.replace("0.12345", "0.12346")])
    assert not tk.records_match([line], [line.replace("0.12345", "0.12445")])
    assert not tk.records_match([line], [line.replace("[2]", "[1]")])
    assert not tk.records_match([line], [])
    assert not tk.records_match([line], ["KURS-NATIJA {broken"])
    assert not tk.records_match([tk.MARKER + ' {"id":"t","qiymat":"b"}'], [tk.MARKER + ' {"id":"t","qiymat":"a"}'])
