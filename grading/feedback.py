"""What nbgrader's feedback must not show: the hidden tests, through the outputs they leave behind.

nbgrader 0.9.6 renders the autograded notebook as feedback, hidden tests included. The course's
nbgrader_config.py cuts the hidden source out (ClearHiddenTests) and adds this preprocessor for the outputs:
a traceback quotes the lines around the failing one (hidden code), so only its last line (the error and
its Uzbek message) is kept; the `KURS-NATIJA` record lines printed for re-checking are dropped.
"""

from nbgrader.preprocessors import NbGraderPreprocessor

from grading.tekshiruv import MARKER


def short_error(output: dict) -> dict:
    """An error output reduced to `Name: message`, without the quoted source lines."""
    output["traceback"] = [f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"]
    return output


def without_records(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith(MARKER))


class HiddenOutputFilter(NbGraderPreprocessor):
    """Shorten tracebacks and drop record lines in every code cell's outputs."""

    def preprocess_cell(self, cell, resources, cell_index):
        if cell.cell_type != "code":
            return cell, resources
        outputs = []
        for out in cell.get("outputs", []):
            if out["output_type"] == "error":
                out = short_error(out)
            elif out["output_type"] == "stream":
                out["text"] = without_records(out["text"])
                if not out["text"]:
                    continue
            outputs.append(out)
        cell.outputs = outputs
        return cell, resources
