"""Every bracketed paper citation in code and docs names a place in the paper itself.

A citation is ``[KEY]`` or ``[KEY LOCATION, LOCATION, ...]`` with KEY one of docs/papers.toml's
papers; each location must be one that file lists for the paper (a range ``A–B`` needs both
ends listed), so that a reader can find it in the paper rather than in reading notes kept
outside the repository. docs/papers.md lists the same places for people.
"""

import os
import re
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAPERS = tomllib.loads((ROOT / "docs" / "papers.toml").read_text())
KEYS = "|".join(re.escape(k) for k in PAPERS)
CITATION = re.compile(rf"\[({KEYS})(?:\s+([^\[\]]{{1,200}}?))?\]")
RANGE = re.compile(r"(.+?)\s*[–-]\s*(.+)")
SUFFIXES = (".py", ".md", ".toml", ".json", ".config")
SKIP_DIRS = {"node_modules", "build", "gpusched.egg-info", "__pycache__"}


def sources() -> list[Path]:
    """The project's files: those git tracks or would track (git-ignored outputs such as
    reports/ and runs/ are a run's, not the project's), or every file without git."""
    try:
        listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                                cwd=ROOT, capture_output=True, text=True, check=True).stdout
        return sorted(ROOT / f for f in listed.splitlines()
                      if f.endswith(SUFFIXES) and (ROOT / f).is_file())
    except (OSError, subprocess.CalledProcessError):
        pass
    found = []
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith(".")]
        found += [Path(folder) / f for f in files if f.endswith(SUFFIXES)]
    return sorted(found)


def bad_locations(key: str, body: str) -> list[str]:
    """The items of one citation's body that are not places listed for ``key``."""
    known = set(PAPERS[key]["locations"])
    bad = []
    for item in (i.strip() for i in body.split(",")):
        ends = RANGE.fullmatch(item)
        parts = [ends.group(1), ends.group(2)] if ends and item not in known else [item]
        if any(part not in known for part in parts):
            bad.append(item)
    return bad


def citations(text: str):
    """(line, key, body) of each citation in ``text``; a body may run over a line break."""
    for m in CITATION.finditer(text):
        yield text.count("\n", 0, m.start()) + 1, m.group(1), " ".join((m.group(2) or "").split())


def test_every_citation_names_a_listed_place_in_its_paper():
    wrong = []
    for path in sources():
        for line, key, body in citations(path.read_text(errors="replace")):
            if body and (bad := bad_locations(key, body)):
                wrong.append(f"{path.relative_to(ROOT)}:{line}: [{key} {body}]: "
                             f"not a place docs/papers.toml lists for {key}: {', '.join(bad)}")
    assert wrong == [], "\n" + "\n".join(wrong)


# a section number beside a paper key but outside its brackets ("OWL §10", "[SRTF] §2.3")
BARE = re.compile(rf"(?:\[({KEYS})\]|(?<![\w\[-])({KEYS}))'?s?\s+§\s?\d")


def test_no_section_number_stands_beside_a_key_outside_its_brackets():
    found = [f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: "
             f"{' '.join(m.group(0).split())}: write it inside the brackets, as a listed place"
             for path in sources() if path != Path(__file__).resolve()
             for text in [path.read_text(errors="replace")]
             for m in BARE.finditer(text)]
    assert found == [], "\n" + "\n".join(found)


def test_the_checker_rejects_reading_note_numbering():
    assert bad_locations("OWL", "§13.4") == ["§13.4"]
    assert bad_locations("OWL", "§4.3, Algorithm 1") == []
    assert bad_locations("THESIS", "§3.3.1–§3.4.2.1") == []
    assert bad_locations("THESIS", "§1.7-§1.8") == ["§1.7-§1.8"]
    assert bad_locations("SRTF", "Simple Slicing, Eq. 2") == []
    assert list(citations("x [SRTF\n  Eq. 2] y [OWL] z")) == [(1, "SRTF", "Eq. 2"), (2, "OWL", "")]
    assert BARE.search("see OWL §10 here") and BARE.search("[SRTF]\n§2.3")
    assert not BARE.search("[OWL §4.3] and Awatramani 2017 §4.4")


def test_papers_md_lists_every_place_of_papers_toml():
    page = (ROOT / "docs" / "papers.md").read_text()
    missing = [f"{key} {loc}" for key, paper in PAPERS.items() for loc in paper["locations"]
               if f"| {loc} |" not in page]
    assert missing == [], "docs/papers.md lacks: " + "; ".join(missing)
