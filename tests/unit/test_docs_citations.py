"""Citations point inside the repository: no file cites a document that is not in it, and every section of
docs/design.md that something cites exists.

Code and docs cite ``docs/design.md §3.3`` (or ``docs/tools.md``, or the JDWP specification). A citation's
later sections in the same sentence (``docs/design.md §3.3 (ownership) and §3.13 (cleanup)``) are checked too;
sections of other documents (``issue 14 §2``, ``JLS §5.6``, ``JVMS §4.3``) are not.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DESIGN = ROOT / "docs" / "design.md"

#: Documents outside the repository, spelled in pieces so that this file does not cite them itself.
OUTSIDE = re.compile("|".join(re.escape(name) for name in ("DESIGN" + ".md", "STYLE" + ".md", "../" + "shared/")))
CITATION = re.compile(r"design\.md(?:\]\([^)]*\))?`?")
TOKEN = re.compile(r"§\s?(\d+(?:\.\d+)*)(?:[–-]§?(\d+(?:\.\d+)*))?")
FOREIGN = re.compile(r"(?:[Ii]ssue \d+|JLS|JVMS|JSR-45|RFC \d+|item \d+)\s*$")
SENTENCE_END = re.compile(r"\.(?=\s|$|\"|`)|\n\s*\n|\"\"\"")
BINARY = (".png", ".jar", ".class", ".dex", ".apk", ".gz", ".zip")


def tracked_files() -> list[Path]:
    try:
        listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True,
                                text=True).stdout.split("\0")
        return [ROOT / name for name in listed if name and (ROOT / name).is_file()]
    except (OSError, subprocess.CalledProcessError):  # a copy of the tree without git
        skip = {".git", ".venv", "__pycache__", "build", "dist", ".mypy_cache", ".ruff_cache", ".pytest_cache"}
        return [p for p in ROOT.rglob("*") if p.is_file() and not skip & set(p.relative_to(ROOT).parts)]


def texts() -> list[tuple[str, str]]:
    found = []
    for path in tracked_files():
        if path.suffix in BINARY:
            continue
        try:
            found.append((path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")))
        except UnicodeDecodeError:
            continue
    return found


def sections(design: str) -> set[str]:
    return set(re.findall(r"^#{2,4} §(\d+(?:\.\d+)*) ", design, re.M))


def cited_sections(text: str, own: bool = False) -> list[str]:
    """Every section a citation of docs/design.md names (``own``: every § of docs/design.md itself)."""
    spans = [(0, len(text))] if own else []
    if not own:
        for m in CITATION.finditer(text):
            end = SENTENCE_END.search(text, m.end())
            spans.append((m.end(), min(end.start() if end else len(text), m.end() + 400)))
    cited = []
    for start, end in spans:
        for t in TOKEN.finditer(text, start, end):
            if FOREIGN.search(text[max(0, t.start() - 20):t.start()]):
                continue
            cited += [n for n in t.groups() if n]
    return cited


def test_no_file_cites_a_document_outside_the_repository() -> None:
    places = [f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
              for name, text in texts() for m in OUTSIDE.finditer(text)]
    assert not places, "cite docs/design.md, docs/tools.md or the JDWP specification instead:\n" + "\n".join(places)


def test_every_cited_design_section_exists() -> None:
    known = sections(DESIGN.read_text(encoding="utf-8"))
    wrong = []
    for name, text in texts():
        own = name == "docs/design.md"
        wrong += [f"{name}: §{n}" for n in cited_sections(text, own) if n not in known]
    assert not wrong, "docs/design.md has no such section:\n" + "\n".join(sorted(set(wrong)))


def test_the_citation_reader() -> None:
    text = "Spec: docs/design.md §3.3 (ownership) and §3.13, issue 14 §2; JLS §5.6. Later §9.9 is not read."
    assert cited_sections(text) == ["3.3", "3.13"]
    assert cited_sections("(docs/design.md §3.6–3.7)") == ["3.6", "3.7"]
    assert cited_sections("[design.md](design.md) §5 and\n§4.1.") == ["5", "4.1"]
    assert {"1", "1.2", "3.13", "9"} <= sections(DESIGN.read_text(encoding="utf-8"))
