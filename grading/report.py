"""The grading report (Uzbek): per student score, time and problems; per item the share of students right."""

import html
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from nbgrader.api import Gradebook, MissingEntry  # noqa: E402

COURSE_ID = "attention-kursi"


def item_scores(gradebook: Gradebook, assignment: str, student: str) -> dict[str, tuple[float, float]]:
    """grade_id -> (score, max) for every graded cell of the student's submission."""
    scores = {}
    submission = gradebook.find_submission(assignment, student)
    for notebook in submission.notebooks:
        for grade in notebook.grades:
            scores[grade.name] = (grade.score, grade.max_score)
    return scores


def collect(db: Path, assignment: str, runs) -> tuple[list[dict], dict[str, list[bool]]]:
    students, items = [], {}
    with Gradebook(f"sqlite:///{db}", COURSE_ID) as gradebook:
        for run in runs:
            try:
                scores = item_scores(gradebook, assignment, run.student)
            except MissingEntry:
                scores = {}
            for grade_id, (score, maximum) in scores.items():
                items.setdefault(grade_id, []).append(score >= maximum > 0)
            students.append({
                "talaba": run.student,
                "ball": sum(s for s, _ in scores.values()),
                "maksimal": sum(m for _, m in scores.values()),
                "vaqt (s)": round(run.seconds, 1),
                "muammolar": run.problems + [f"{g}: test o'tdi, lekin natija yozuvi mos emas (buzish belgisi)"
                                             for g in run.outside_failed],
            })
    return students, items


def plot_items(items: dict[str, list[bool]], path: Path) -> Path:
    names = sorted(items)
    shares = [sum(items[n]) / len(items[n]) for n in names]
    fig, ax = plt.subplots(figsize=(max(6, 0.45 * len(names)), 3.8))
    ax.bar(names, shares, color="#1a73e8")
    ax.set_ylim(0, 1)
    ax.set_ylabel("to'g'ri javob bergan talabalar ulushi")
    ax.set_title("Har bir savol va mashq bo'yicha to'g'ri javoblar ulushi")
    ax.tick_params(axis="x", rotation=60)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def write_report(root: Path, assignment: str, runs, out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    students, items = collect(root / "gradebook.db", assignment, runs)
    plot = plot_items(items, out_dir / "savollar.png") if items else None
    md = [f"# Baholash hisoboti: {assignment}", "", "## Talabalar", "",
          "| Talaba | Ball | Vaqt (s) | Muammolar |", "|---|---|---|---|"]
    md += [f"| {s['talaba']} | {s['ball']:g} / {s['maksimal']:g} | {s['vaqt (s)']} | "
           f"{'; '.join(s['muammolar']) or '—'} |" for s in students]
    md += ["", "## Savollar", "", "| Katak | To'g'ri javoblar ulushi |", "|---|---|"]
    md += [f"| {n} | {sum(v)}/{len(v)} ({sum(v) / len(v):.0%}) |" for n, v in sorted(items.items())]
    (out_dir / "report.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    rows = "".join(
        f"<tr><td>{html.escape(s['talaba'])}</td><td>{s['ball']:g} / {s['maksimal']:g}</td><td>{s['vaqt (s)']}</td>"
        f"<td>{'<br>'.join(html.escape(p) for p in s['muammolar']) or '—'}</td></tr>" for s in students)
    item_rows = "".join(f"<tr><td>{n}</td><td>{sum(v)}/{len(v)} ({sum(v) / len(v):.0%})</td></tr>"
                        for n, v in sorted(items.items()))
    page = (f"<!doctype html><html lang='uz'><head><meta charset='utf-8'><title>Baholash: {assignment}</title>"
            "<style>body{font-family:sans-serif;margin:2em}td,th{padding:.2em .6em;text-align:left;"
            "vertical-align:top}</style></head><body>"
            f"<h1>Baholash hisoboti: {html.escape(assignment)}</h1><h2>Talabalar</h2><table>"
            "<tr><th>Talaba</th><th>Ball</th><th>Vaqt (s)</th><th>Muammolar</th></tr>" + rows + "</table>"
            "<h2>Savollar</h2><table><tr><th>Katak</th><th>To'g'ri javoblar ulushi</th></tr>" + item_rows
            + "</table>" + (f"<img src='{plot.name}' alt='savollar'>" if plot else "") + "</body></html>")
    report = out_dir / "report.html"
    report.write_text(page, encoding="utf-8")
    return report
