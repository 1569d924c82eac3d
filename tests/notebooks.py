"""Reading executed notebooks in tests (one definition, in builder.outputs), and the checks lessons share."""

import re

import pytest

from builder.outputs import cell_output_text, errors, images, output_text

__all__ = ["cell_output_text", "errors", "images", "output_text", "seed_checks", "value"]


def value(text: str, pattern: str) -> str:
    """The one group of the one line of `text` matching `pattern`."""
    found = re.findall(pattern, text, flags=re.M)
    assert len(found) == 1, f"expected one line matching {pattern!r}, found {found}"
    return found[0]


def seed_checks(exact_lines: list[str], float_lines: dict[str, str]):
    """A lesson's shared tests: it ran clean, the seed's exact lines are printed, parity gaps are float noise.

    Bind the result in the test module: `test_a, test_b, test_c = seed_checks(EXACT_LINES, FLOAT_LINES)`.
    """

    def test_runs_without_errors(nb):
        assert errors(nb) == []

    @pytest.mark.parametrize("line", exact_lines)
    def test_seed_line_present(text, line):
        assert line in text.splitlines(), f"seed line missing from the executed lesson:\n{line!r}"

    @pytest.mark.parametrize("name", float_lines)
    def test_parity_differences_are_float_noise(text, name):
        got = value(text, float_lines[name])
        assert float(got) < 1e-5, f"{name}: difference {got} is not float noise"

    return test_runs_without_errors, test_seed_line_present, test_parity_differences_are_float_noise
