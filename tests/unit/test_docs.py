"""The docs against the code: every `metrics-etl` command and option they show exists, the README
mentions every command and stays a guide, every link resolves, the docs index lists every doc,
and the configuration doc names every setting."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from pipelines.cli import cli
from pipelines.config import ENV_VARS

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.M | re.S)
_INLINE = re.compile(r"`([^`]+)`")  # inline code may wrap to the next line
# Where an invocation ends: a comment, the end of inline code, a pipe or another command.
_END = re.compile(r"\s#|[`|;)]|&&")
_WORD = re.compile(r"[a-z][a-z-]*")


def _snippets(text: str) -> Iterator[str]:
    """Code: each line of a fenced block, and each inline code span outside the blocks."""
    for block in _FENCE.findall(text):
        yield from block.splitlines()
    yield from (" ".join(code.split()) for code in _INLINE.findall(_FENCE.sub("", text)))


def _invocations(text: str) -> Iterator[list[str]]:
    """The words after each `metrics-etl` in code, e.g. ["run", "--day", "2026-11-21"]."""
    for snippet in _snippets(text):
        for match in re.finditer(r"(?<![\w/-])metrics-etl\s+(.*)", snippet):
            rest = _END.split(match.group(1), maxsplit=1)[0]
            try:
                words = shlex.split(rest)
            except ValueError:
                words = rest.split()
            # `metrics-etl run: <days>…` quotes an error line, `metrics-etl …` any command: not invocations.
            if words and _WORD.fullmatch(words[0]):
                yield words


def _resolve(words: list[str]) -> tuple[list[str], click.Command, list[str]]:
    """The command path the words name, its command, and the words after it."""
    command: click.Command = cli
    path: list[str] = []
    while isinstance(command, click.Group) and words and words[0] in command.commands:
        path.append(words[0])
        command = command.commands[words[0]]
        words = words[1:]
    return path, command, words


def _options(command: click.Command) -> set[str]:
    with click.Context(command, info_name=command.name) as ctx:
        help_text = command.get_help(ctx)
    return set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", help_text))


CASES = [
    pytest.param(doc, words, id=f"{doc.name}: metrics-etl {' '.join(words)}")
    for doc in DOCS
    for words in _invocations(doc.read_text())
]


def test_the_docs_show_invocations() -> None:
    assert len(CASES) > 20  # the parser still finds the docs' commands


@pytest.mark.parametrize(("doc", "words"), CASES)
def test_every_documented_command_and_option_exists(doc: Path, words: list[str]) -> None:
    path, command, rest = _resolve(words)
    assert path, f"{doc.name}: `metrics-etl {words[0]}` is not a command (`metrics-etl --help` lists them)"
    assert not isinstance(command, click.Group), f"{doc.name}: `metrics-etl {' '.join(path)}` needs a subcommand"
    known = _options(command)
    unknown = [word.split("=")[0] for word in rest if word.startswith("--") and word.split("=")[0] not in known]
    assert unknown == [], f"{doc.name}: `metrics-etl {' '.join(path)}` has no {', '.join(unknown)}"


def _leaf_commands(group: click.Group = cli, path: tuple[str, ...] = ()) -> Iterator[str]:
    for name, command in group.commands.items():
        if command.hidden:  # plumbing for a script (`dev-env` for `make dev`), not a person's command
            continue
        if isinstance(command, click.Group):
            yield from _leaf_commands(command, (*path, name))
        else:
            yield " ".join((*path, name))


def test_the_readme_mentions_every_command() -> None:
    readme = {" ".join(_resolve(words)[0]) for words in _invocations((ROOT / "README.md").read_text())}
    assert sorted(set(_leaf_commands()) - readme) == []


_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: doc.name)
def test_every_relative_link_of_the_docs_names_a_file_that_exists(doc: Path) -> None:
    targets = [t for t in _LINK.findall(doc.read_text()) if "://" not in t]
    missing = [t for t in targets if not (doc.parent / t).exists()]
    assert missing == [], f"{doc.relative_to(ROOT)} links to {missing}"


def test_the_docs_index_gives_every_doc_a_line_and_the_readme_links_the_index() -> None:
    index = (ROOT / "docs" / "README.md").read_text()
    listed = re.findall(r"^- \[[^]]+\]\(([\w-]+\.md)\): \S", index, re.M)
    assert len(listed) == len(set(listed)), "a doc is listed twice"
    assert sorted(listed) == sorted(p.name for p in (ROOT / "docs").glob("*.md") if p.name != "README.md")
    assert "(docs/README.md)" in (ROOT / "README.md").read_text()


def test_the_readme_stays_a_guide() -> None:
    assert len((ROOT / "README.md").read_text().splitlines()) <= 150


def test_the_configuration_doc_names_every_setting() -> None:
    documented = set(re.findall(r"`([A-Z][A-Z0-9_]+)`", (ROOT / "docs" / "configuration.md").read_text()))
    assert sorted(set(ENV_VARS.values()) - documented) == []
