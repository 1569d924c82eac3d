"""The course as a student and an instructor see it: JupyterLab and formgrader in Debian's Chromium.

One JupyterLab server for the module, on a throwaway copy of the course (127.0.0.1, random port, token).
Each test has a hard time limit and saves what the browser showed to build/screenshots/<test>.png.
The formgrader test needs a graded submission: it is graded by the course's own entry point
(`python -m grading`, sandboxed, so root only) in the background while the student tests run.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pytest

from tests.lab_server import (
    CHROMIUM,
    CHROMIUM_ARGS,
    ROOT,
    LabServer,
    browser_unavailable,
    copy_course,
    keep_grading_cache,
    sandbox_unavailable,
    screenshot,
    time_limit,
)

pytestmark = pytest.mark.skipif(bool(browser_unavailable()), reason=browser_unavailable() or "")

STUDENT = "talaba1"
WRITTEN_ANSWER = ("Og'irliklar faqat boshning qayerga qarashini ko'rsatadi. Boshni o'chirib, aniqlik tushganini "
                  "o'lchasak, uning vazifa uchun kerakligini isbotlaymiz.")
NBGRADER_PLUGINS = ["validate-assignment", "formgrader", "assignment-list", "course-list"]


def submission_from_release(course: Path) -> None:
    """A student's submitted/ folder: the released notebooks with question 1 right, 2 wrong, a written answer."""
    folder = course / "submitted" / STUDENT / "multihead"
    folder.mkdir(parents=True)
    answers = {"javob-01": "javob_01 = 8", "javob-02": "javob_02 = (4, 10, 64)", "nega-11": WRITTEN_ANSWER}
    for path in sorted((course / "release" / "multihead").glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        for cell in notebook.cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if grade_id in answers:
                cell.source = answers[grade_id]
        nbformat.write(notebook, folder / path.name)


class Grading:
    """`python -m grading --root <copy>` started at once and awaited by the test that needs its result."""

    def __init__(self, course: Path):
        self.course = course
        self.reason = sandbox_unavailable()
        self.process = None
        if self.reason is None:
            submission_from_release(course)
            # From the repository, so the sandboxed kernels see the installed course packages.
            self.process = subprocess.Popen(
                [sys.executable, "-m", "grading", "--root", str(course), "--assignment", "multihead"],
                cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def wait(self, timeout: float) -> None:
        if self.process is None:
            pytest.skip(f"no graded submission for formgrader: the grading sandbox is unavailable ({self.reason})")
        output, _ = self.process.communicate(timeout=timeout)
        assert self.process.returncode == 0, f"python -m grading failed:\n{output}"
        keep_grading_cache(self.course)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(30)


@pytest.fixture(scope="module")
def course():
    # A short path: the grading sandbox's kernel sockets live under the course (a socket path has <= 107 bytes).
    work = Path(tempfile.mkdtemp(prefix="kb-"))
    yield copy_course(work / "attention-kursi")
    shutil.rmtree(work, ignore_errors=True)


@pytest.fixture(scope="module")
def grading(course):
    run = Grading(course)
    yield run
    run.stop()


@pytest.fixture(scope="module")
def lab(course, grading, tmp_path_factory):
    work = tmp_path_factory.mktemp("jupyter")
    exchange = work / "exchange"
    exchange.mkdir()
    exchange.chmod(0o1777)  # nbgrader's exchange: everyone may create, sticky
    server = LabServer(course, work)
    # Where a JupyterHub deployment puts it too: nbgrader_config.py in a Jupyter config directory.
    (Path(server.env["JUPYTER_CONFIG_DIR"]) / "nbgrader_config.py").write_text(f"c.Exchange.root = {str(exchange)!r}\n")
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, timeout=30_000)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, lab, request):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.console_messages_seen = []
    page.on("console", lambda message: page.console_messages_seen.append(message.text))
    yield page
    # Whatever happened, keep what the browser showed last.
    screenshot(page, request.node.name.removeprefix("test_"))
    context.close()
    lab.shutdown_kernels()


def open_lab(page, lab: LabServer, path: str) -> None:
    page.goto(lab.url(f"lab/tree/{path}?reset"))  # ?reset: no tabs left open by an earlier test
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell", timeout=60_000)
    # The toolbar's indicator says idle before any kernel exists; the status bar names the kernel once connected.
    page.locator(".jp-StatusBar-Widget").get_by_text(re.compile(r"ipykernel\) \| Idle")).wait_for(timeout=60_000)
    activated = [text for text in page.console_messages_seen if "is activated" in text]
    missing = [name for name in NBGRADER_PLUGINS if not any(name in text for text in activated)]
    assert not missing, f"nbgrader's JupyterLab plugins did not activate: {missing}; console: {activated}"
    assert not [t for t in page.console_messages_seen if "Unsatisfied version" in t and "nbgrader" in t]


def cell(page, index: int):
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell").nth(index)


def type_into(page, index: int, text: str) -> None:
    """Replace a code cell's text the way a student does: click in it, select all, type."""
    editor = cell(page, index).locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.type(text)
    page.keyboard.press("Escape")


def run_from(page, index: int, count: int) -> None:
    """Select cell `index` in command mode and press Shift+Enter `count` times."""
    cell(page, index).locator(".jp-InputArea-prompt").first.click()  # the "[ ]:" prompt selects the cell
    page.keyboard.press("Escape")
    for _ in range(count):
        page.keyboard.press("Shift+Enter")


def test_student_lesson_figure(page, lab):
    """Lesson 1 in JupyterLab: TEZ = True, the first cells run, the diagram is drawn as an image."""
    with time_limit(120, "opening lesson 1 and drawing its first figure"):
        open_lab(page, lab, "notebooks/01_attention_asoslari.ipynb")
        parameters = cell(page, 2)
        assert "TEZ = False" in parameters.inner_text()
        type_into(page, 2, "TEZ = True\nT = 60\nEPOXALAR = 60\nSEEDLAR = (0, 1, 2)")
        run_from(page, 0, 10)  # title .. the path-length diagram (cell 9)
        figure = cell(page, 9).locator(".jp-OutputArea-output img")
        figure.wait_for(state="visible", timeout=90_000)
        figure.scroll_into_view_if_needed()
        size = figure.evaluate("img => [img.naturalWidth, img.naturalHeight]")
        assert size[0] > 200 and size[1] > 100, f"the diagram is not a real picture: {size}"
        assert "torch oqimlari" in cell(page, 7).locator(".jp-OutputArea").inner_text()
        assert not page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']").count()
        cell(page, 9).scroll_into_view_if_needed()


def test_student_assignment_check_and_validate(page, lab):
    """The released assignment: a right and a wrong answer, the Uzbek check messages, then Validate."""
    with time_limit(150, "answering two questions and validating"):
        open_lab(page, lab, "release/multihead/savollar.ipynb")
        run_from(page, 0, 1)  # the locked setup cell
        type_into(page, 3, "javob_01 = 8")
        type_into(page, 6, "javob_02 = (4, 10, 64)")
        run_from(page, 3, 2)
        run_from(page, 6, 2)
        right = cell(page, 4).locator(".jp-OutputArea")
        wrong = cell(page, 7).locator(".jp-OutputArea")
        right.get_by_text("To'g'ri!").wait_for(timeout=60_000)
        wrong.get_by_text("Hali to'g'ri emas").wait_for(timeout=30_000)
        assert "Tayyor: torch" in cell(page, 0).locator(".jp-OutputArea").inner_text()
        assert "✅ To'g'ri! javob_01 = 8" in right.inner_text()
        wrong_text = wrong.inner_text()
        assert "❌ Hali to'g'ri emas: javob_02 = [4, 10, 64]" in wrong_text, wrong_text
        assert "Maslahat:" in wrong_text
        cell(page, 4).scroll_into_view_if_needed()
        screenshot(page, "student_assignment_messages")

        # Validate saves the notebook itself, then asks the server to run nbgrader validate on it.
        page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Toolbar").get_by_role(
            "button", name="Validate").click()
        dialog = page.locator(".jp-Dialog")
        dialog.get_by_text("Validation Results").wait_for(timeout=120_000)
        body = dialog.locator(".jp-Dialog-body").inner_text()
        # The other ten questions are still unanswered, so nbgrader lists their failing tests.
        assert "NotImplementedError" in body or "failed" in body.lower(), body
        assert "There was an error running the validate command" not in body, body


def test_instructor_formgrader_manual_grade(page, lab, course, grading):
    """Formgrader inside JupyterLab: the assignment, the graded submission, points for question 11's text."""
    with time_limit(300, "grading in the background and giving points in formgrader"):
        started = time.monotonic()
        grading.wait(timeout=280)
        waited = time.monotonic() - started
    with time_limit(90, "giving points in formgrader"):
        status, headers, _ = lab.get("formgrader")
        assert status == 200
        # A frame-ancestors 'none' policy (JupyterHub >= 4.1 sets it) would leave the Lab tab blank.
        assert "frame-ancestors 'self'" in headers.get("Content-Security-Policy", ""), headers
        page.goto(lab.url("lab?reset"))
        page.wait_for_selector(".jp-LabShell", timeout=60_000)
        page.get_by_role("menuitem", name="Nbgrader").click()
        page.get_by_role("menuitem", name="Formgrader", exact=True).click()
        frame = page.frame_locator(".jp-MainAreaWidget:not(.lm-mod-hidden) iframe").first
        assignment = frame.get_by_role("row", name=re.compile(r"^\s*multihead\b"))
        assignment.wait_for()
        cells = [c.strip() for c in assignment.locator("td").all_inner_texts()]
        assert cells[0] == "multihead" and "1" in cells, cells  # one submission
        screenshot(page, "instructor_formgrader_assignments")

        frame.get_by_role("link", name="Manual Grading").click()
        frame.get_by_role("link", name="multihead").click()
        frame.get_by_role("link", name="savollar").click()
        row = frame.get_by_role("row", name=re.compile("Submission #1"))
        row.wait_for()
        # Autograded: question 1 right (1 of 12 code points), both written answers still to grade.
        assert re.search(r"1 / 14\s+1 / 12\s+0 / 2", row.inner_text()), row.inner_text()
        frame.get_by_role("link", name="Submission #1").click()

        score = frame.locator("input.score#nega-11")
        score.wait_for()
        assert WRITTEN_ANSWER[:40] in frame.locator(".nbgrader_cell", has=score).inner_text()
        score.fill("1")
        frame.locator("textarea#nega-11-comment").fill("Yaxshi: o'chirish (ablation) rolni isbotlaydi.")
        frame.locator("textarea#nega-11-comment").press("Tab")
        frame.locator(".nbgrader_cell", has=score).locator(".score-saved").wait_for(state="visible")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and manual_grade(course) != (1.0, True):
            time.sleep(0.3)
        assert manual_grade(course) == (1.0, True), manual_grade(course)
        # the screenshot (taken on teardown) shows question 11's points, not the field Tab moved to:
        # focusing the score makes formgrader scroll there (a 500 ms animation)
        score.focus()
        page.wait_for_timeout(800)
    print(f"waited {waited:.0f} s for the background grading")


def manual_grade(course: Path) -> tuple[float | None, bool]:
    """nega-11's manual score and whether its comment is stored, read from the course's gradebook."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "attention-kursi") as gradebook:
        grade = gradebook.find_grade("nega-11", "savollar", "multihead", STUDENT)
        comment = gradebook.find_comment("nega-11", "savollar", "multihead", STUDENT)
        return grade.manual_score, bool(comment.manual_comment and "ablation" in comment.manual_comment)
