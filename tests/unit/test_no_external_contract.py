"""The project states the contract it implements in its own docs (docs/service-contract.md) and
cites only those: no file sends a reader to a specification the repository does not hold."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A numbered section of "the spec", the spec by name, or the directory beside the repository
# that held it (this file names them to find them, so it is left out).
_CITATION = re.compile(
    r"\bspec(?:ification)?\s+(?:section\s+|§\s*)?\d"
    r"|\bthe\s+spec\b|\bspec's\b"
    r"|platform-api\.md"
    r"|(?:\.\./|/work/)shared\b|\bshared/(?:spec|reference)/",
    re.IGNORECASE,
)


def _repository_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [ROOT / name for name in listed.split("\0") if name and (ROOT / name).is_file()]


def test_no_file_cites_a_specification_outside_the_repository() -> None:
    files = _repository_files()
    assert any(path.name == "service-contract.md" for path in files)  # the listing works
    found = []
    for path in files:
        if path == Path(__file__).resolve():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # binary: cites nothing
        for number, line in enumerate(text.splitlines(), 1):
            if _CITATION.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert found == [], "cite docs/service-contract.md instead:\n" + "\n".join(found)


def test_the_citation_pattern_finds_each_form_an_outside_citation_took() -> None:
    for line in (
        "rules (spec 2.1)",
        "Spec 4.1: the policy",
        "spec section 6",
        "the spec's names",
        "`spec/platform-api.md`",
        "a clone with ../shared beside it",
        "Path('/work/shared/x')",
    ):
        assert _CITATION.search(line), line
    for line in ("a spec per check", "the reader's column spec", "docs/service-contract.md §2"):
        assert not _CITATION.search(line), line
