"""Execute notebooks in place so their committed outputs are what nbval compares.

Usage: python scripts/execute_notebooks.py [NOTEBOOK_OR_DIR ...]   (default: notebooks/ and labs/)

Each notebook runs top to bottom in a fresh ``python3`` kernel from its own folder,
as a learner's would. Execution counts and outputs are rewritten; widget state is
dropped and a widget view's model id (a random uuid per run, pointing at that dropped
state) is replaced by one derived from the notebook, cell and output, so that
re-running never changes a file for no reason.

The kernel talks to this script over IPC (Unix sockets in a private temporary
folder), not jupyter_client's default TCP on localhost: ipykernel >= 7 warns, once per
kernel, that plain TCP is readable by anyone on the machine, and IPC is the remedy it
names (no other local user can reach a socket in a 0700 folder).
"""

from __future__ import annotations

import sys
import tempfile
import time
import uuid
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from traitlets.config import Config

ROOT = Path(__file__).resolve().parent.parent


def notebooks(arguments: list[str]) -> list[Path]:
    targets = [Path(a) for a in arguments] or [ROOT / "notebooks", ROOT / "labs"]
    found: list[Path] = []
    for target in targets:
        if target.is_dir():
            found.extend(p for p in sorted(target.rglob("*.ipynb")) if ".ipynb_checkpoints" not in p.parts)
        else:
            found.append(target)
    return found


def execute(path: Path) -> float:
    notebook = nbformat.read(path, as_version=4)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="course-kernel-") as sockets:  # created 0700
        NotebookClient(
            notebook,
            # nbclient makes (and so shuts down) the kernel manager itself; the config gives it IPC
            config=Config({"KernelManager": {"transport": "ipc", "ip": str(Path(sockets) / "kernel")}}),
            timeout=120,
            kernel_name="python3",
            resources={"metadata": {"path": str(path.parent)}},
            store_widget_state=False,
            record_timing=False,  # per-cell timestamps would change the file on every run
        ).execute()
    notebook.metadata.pop("widgets", None)
    _coalesce_streams(notebook)
    _stable_widget_ids(notebook, path.name)
    nbformat.write(notebook, path)
    return time.perf_counter() - started


def _coalesce_streams(notebook: nbformat.NotebookNode) -> None:
    """Merge consecutive stdout (or stderr) chunks of a cell into one output.

    The kernel flushes a ``print`` in chunks that split at random points, so without
    this a re-run could rewrite a committed notebook for no visible change.
    """
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        merged: list[nbformat.NotebookNode] = []
        for output in cell.outputs:
            previous = merged[-1] if merged else None
            if previous and output.output_type == previous.output_type == "stream" and output.name == previous.name:
                previous.text += output.text
            else:
                merged.append(output)
        cell.outputs = merged


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
_WIDGET_IDS = uuid.UUID("8f0c5d2e-6a7b-4c1d-9e3f-2b4a6c8d0e1f")
"""The namespace of the widget views' stable model ids."""


def _stable_widget_ids(notebook: nbformat.NotebookNode, name: str) -> None:
    """Give each widget view a model id derived from the notebook's file name, its cell's id and the output's place.

    The kernel picks a random id per run; without the widget state (not stored) no
    page can show the model anyway, so any id serves, and a stable one keeps the file.
    """
    for cell in notebook.cells:
        for number, output in enumerate(cell.get("outputs", [])):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if isinstance(view, dict) and "model_id" in view:
                view["model_id"] = uuid.uuid5(_WIDGET_IDS, f"{name}/{cell.get('id')}/{number}").hex


def main(arguments: list[str]) -> int:
    for path in notebooks(arguments):
        seconds = execute(path)
        print(f"{seconds:6.1f} s  {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
