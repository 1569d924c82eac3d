"""The pinned JupyterLab, Notebook and nbgrader work together: nbgrader's extensions are enabled and load.

`jupyter labextension list` exits 0 even when an extension is incompatible (it prints "X" and a table of
conflicting dependencies), so the tests read its output, as a person would.
"""

import re
import subprocess
import sys

import pytest

ANSI = re.compile(r"\x1b\[[0-9;]*m")
SERVER_EXTENSIONS = [
    "nbgrader.server_extensions.formgrader",
    "nbgrader.server_extensions.validate_assignment",
    "nbgrader.server_extensions.assignment_list",
    "nbgrader.server_extensions.course_list",
    "jupyterlab",
    "notebook",
]


def jupyter(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "jupyter", *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"jupyter {' '.join(args)} failed:\n{done.stdout}{done.stderr}"
    return ANSI.sub("", done.stdout + done.stderr)


def lab_extensions(output: str) -> dict[str, str]:
    """name -> the rest of its line ("v0.9.6 enabled OK"), from `jupyter labextension list`."""
    found = {}
    for line in output.splitlines():
        match = re.match(r"^\s+(@?[\w.-]+(?:/[\w.-]+)?)\s+(v\S+\s+.*)$", line)
        if match:
            found[match.group(1)] = match.group(2)
    return found


def problems(output: str) -> list[str]:
    """What `labextension list` reports about nbgrader: not listed, not enabled, not OK, incompatible."""
    extensions = lab_extensions(output)
    status = extensions.get("@jupyter/nbgrader")
    if status is None:
        return [f"@jupyter/nbgrader is not installed; listed: {sorted(extensions)}"]
    found = []
    if not re.search(r"\benabled\s+OK\b", status):
        found.append(f"@jupyter/nbgrader {status} (want 'enabled OK')")
    if "not compatible" in output:
        found.append(output[output.index('"'):].strip())
    disabled = output.split("Disabled extensions:")[1] if "Disabled extensions:" in output else ""
    if "nbgrader" in disabled:
        found.append(f"some nbgrader plugins are disabled:{disabled}")
    return found


def test_nbgrader_lab_extension_enabled_and_compatible():
    output = jupyter("labextension", "list")
    assert not problems(output), "\n".join(problems(output)) + "\n\n" + output
    broken = {name: status for name, status in lab_extensions(output).items()
              if not re.search(r"\benabled\s+OK\b", status)}
    assert not broken, f"lab extensions that do not load: {broken}"


def test_problems_reads_an_incompatible_listing():
    """The checker itself fails on what Lab 4.2.7 printed with nbgrader 0.9.6 (recorded output)."""
    incompatible = """JupyterLab v4.2.7
/venv/share/jupyter/labextensions
        jupyterlab_pygments v0.3.0 enabled OK (python, jupyterlab_pygments)
        @jupyter/nbgrader v0.9.6 enabled  X

"@jupyter/nbgrader@0.9.6" is not compatible with the current JupyterLab
Conflicting Dependencies:
JupyterLab                  Extension      Package
>=4.2.7 <4.3.0              >=4.4.0 <5.0.0 @jupyterlab/application
"""
    found = problems(incompatible)
    assert any("want 'enabled OK'" in p for p in found) and any("not compatible" in p for p in found), found
    assert problems("JupyterLab v4.6.6\n/x\n        @jupyter/nbgrader v0.9.6 enabled OK\n") == []
    assert problems("JupyterLab v4.6.6\n/x\n        @jupyter/nbgrader v0.9.6 disabled OK\n")


@pytest.fixture(scope="module")
def server_extensions() -> str:
    return jupyter("server", "extension", "list")


@pytest.mark.parametrize("name", SERVER_EXTENSIONS)
def test_server_extension_enabled_and_ok(server_extensions, name):
    output = server_extensions
    assert re.search(rf"^\s+{re.escape(name)}\s+enabled\s*$", output, re.M), f"{name} is not enabled:\n{output}"
    assert re.search(rf"^\s+{re.escape(name)}\s+\S*\s*OK\s*$", output, re.M), f"{name} did not validate:\n{output}"
