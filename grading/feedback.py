"""What nbgrader's feedback must not show: the hidden tests, through the outputs they leave behind.

nbgrader 0.9.6 renders the autograded notebook as feedback, hidden tests included. The course's
nbgrader_config.py cuts the hidden source out (ClearHiddenTests) and adds this preprocessor for the outputs:
a traceback quotes the lines around the failing one (hidden code), so only its last line (the error and
its Uzbek message) is kept; the `KURS-NATIJA` record lines printed for re-checking are dropped; and any
output that quotes a line of a hidden test (student code can print a cell's source or the input history) is
dropped. It runs before ClearHiddenTests, while the hidden lines are still there to compare with.
"""

import re

from nbformat.v4 import new_output
from nbgrader.preprocessors import NbGraderPreprocessor

from grading.tekshiruv import MARKER


def short_error(output: dict) -> dict:
    """An error output reduced to `Name: message`, without the quoted source lines."""
    output["traceback"] = [f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"]
    return output


def without_records(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith(MARKER))


HIDDEN_BLOCK = re.compile(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", re.S)
QUOTED = "(yashirin test matni ko'rsatilmaydi)"


def hidden_lines(nb) -> set[str]:
    """The distinctive lines of every hidden test in the notebook."""
    lines = {"BEGIN HIDDEN TESTS", "END HIDDEN TESTS"}
    for cell in nb.cells:
        for block in HIDDEN_BLOCK.findall(cell.source if cell.cell_type == "code" else ""):
            lines |= {line.strip() for line in block.splitlines() if len(line.strip()) >= 12}
    return lines


def output_text(out) -> str:
    data = out.get("data", {})
    parts = [out.get("text", ""), out.get("evalue", ""), *out.get("traceback", []), *map(str, data.values())]
    return "\n".join(p if isinstance(p, str) else "".join(map(str, p)) for p in parts)


class HiddenOutputFilter(NbGraderPreprocessor):
    """Shorten tracebacks, drop record lines and any output quoting hidden tests, in every code cell."""

    def preprocess(self, nb, resources):
        self.hidden = hidden_lines(nb)
        return super().preprocess(nb, resources)

    def quotes_hidden(self, out) -> bool:
        text = output_text(out)
        return any(line in text for line in self.hidden)

    def preprocess_cell(self, cell, resources, cell_index):
        if cell.cell_type != "code":
            return cell, resources
        outputs = []
        for out in cell.get("outputs", []):
            if self.quotes_hidden(out):
                out = new_output("stream", name="stdout", text=QUOTED + "\n")
            elif out["output_type"] == "error":
                out = short_error(out)
            elif out["output_type"] == "stream":
                out["text"] = without_records(out["text"])
                if not out["text"]:
                    continue
            outputs.append(out)
        cell.outputs = outputs
        return cell, resources
