"""The README for a newcomer and a teacher (issue 50): at most 120 lines; every shell command it shows exists in
what requirements.txt installs (a ``python -m`` module is found, a script compiles, an executable is on PATH, and,
slow, each command with its subcommands answers ``--help`` naming every option the README gives it); every
relative link in it, and in the docs pages its rest moved to, reaches a file and a heading there; its start-here
steps and docs/lesson.md's are stsdemo.lesson's; its test command is the one .ci/run runs."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import tomllib

from stsdemo import lesson
from stsdemo.story import plain

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
MOVED_TO = ("docs/guide.md", "docs/lesson.md", "docs/deploying.md")  # where the README's rest went
MAX_LINES = 120
SHELL_FENCE = re.compile(r"^ *```(?:bash|sh|shell)\n(.*?)^ *```", re.MULTILINE | re.DOTALL)
ANY_FENCE = re.compile(r"^ *```.*?^ *```", re.MULTILINE | re.DOTALL)
SUBCOMMAND = re.compile(r"[a-z][a-z0-9-]*")  # a placeholder (DIR, <you>/...) or a path ends the subcommands
REPO_FILE = (".py", ".txt", ".toml")  # arguments that name one of the repository's files
LINK = re.compile(r"\]\(([^)\s]+)\)")


@dataclass(frozen=True)
class Command:
    """One command of a shell block: the program (an executable, ``python -m <module>`` or a script), the
    subcommands before its first argument, the options it is given and the repository files it names."""

    line: str
    program: tuple[str, ...]
    subcommands: tuple[str, ...]
    options: tuple[str, ...]
    files: tuple[str, ...]

    @property
    def module(self) -> str | None:
        return self.program[2] if self.program[1:2] == ("-m",) else None

    @property
    def script(self) -> str | None:
        return self.program[1] if len(self.program) == 2 else None


def parse(line: str) -> list[Command]:
    """The commands of one shell line (``a && b``), without a leading ``NAME=value`` or a trailing comment."""
    words = shlex.split(line, comments=True)
    found, start = [], 0
    for end in [i for i, word in enumerate(words) if word == "&&"] + [len(words)]:
        argv = words[start:end]
        start = end + 1
        while argv and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", argv[0]):
            argv = argv[1:]
        if not argv:
            continue
        if argv[0] in ("python", "python3"):
            size = 3 if argv[1] == "-m" else 2
            program, rest = ("python", *argv[1:size]), argv[size:]
        else:
            program, rest = (argv[0],), argv[1:]
        subcommands = []
        for word in rest:
            if not SUBCOMMAND.fullmatch(word):
                break
            subcommands.append(word)
        options = tuple(word.split("=", 1)[0] for word in rest if word.startswith("-") and word != "-")
        files = tuple(word for word in argv if word.endswith(REPO_FILE))
        found.append(Command(line, program, tuple(subcommands), options, files))
    return found


def shell_commands(text: str) -> list[Command]:
    return [
        command
        for block in SHELL_FENCE.findall(text)
        for line in block.splitlines()
        if line.strip()
        for command in parse(line)
    ]


def missing(command: Command) -> str | None:
    """Why the command does not exist where requirements.txt was installed, or None (no process started)."""
    absent = [name for name in command.files if not (REPO / name).is_file()]
    if absent:
        return f"{command.line!r}: no file {absent}"
    if command.module:
        return (
            None
            if importlib.util.find_spec(command.module)
            else f"{command.line!r}: no module {command.module}"
        )
    if command.script:
        compile((REPO / command.script).read_text(encoding="utf-8"), command.script, "exec")
        return None
    return (
        None if shutil.which(command.program[0]) else f"{command.line!r}: {command.program[0]} is not on PATH"
    )


def unanswered(command: Command) -> str | None:
    """Why ``<command> <subcommands> --help`` fails or leaves out one of the command's options, or None."""
    program = (sys.executable, *command.program[1:]) if command.module else command.program
    env = {**os.environ, "NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "200"}
    done = subprocess.run(
        [*program, *command.subcommands, "--help"],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
    )
    if done.returncode:
        return f"{command.line!r}: --help exits {done.returncode}: {done.stderr.strip()[-300:]}"
    unknown = [
        option
        for option in command.options
        if not re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", done.stdout)
    ]
    return f"{command.line!r}: --help names no {unknown}" if unknown else None


def readme() -> str:
    return README.read_text(encoding="utf-8")


def section(text: str, heading: str) -> str:
    return text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


# ---- length and commands ----------------------------------------------------------------------------------


def test_the_readme_is_at_most_120_lines():
    assert len(readme().splitlines()) <= MAX_LINES


def test_every_command_the_readme_shows_exists():
    commands = shell_commands(readme())
    assert {"pip", "hf", "stsdemo", "pytest", "app.py"} <= {part for c in commands for part in c.program[-1:]}
    problems = [problem for command in commands if (problem := missing(command))]
    assert not problems, problems


def test_a_misspelled_module_executable_or_file_is_caught():
    for line in ("python -m stsdemoo site DIR", "hff auth login", "pip install -r requirement.txt"):
        assert all(missing(command) for command in parse(line)), line


@pytest.mark.slow  # starts a process a command
def test_every_command_the_readme_shows_answers_help_with_its_options():
    seen, problems = set(), []
    for command in shell_commands(readme()):
        if command.script or (command.program, command.subcommands, command.options) in seen:
            continue  # a script (app.py) launches the app: compiled by the test above
        seen.add((command.program, command.subcommands, command.options))
        if problem := unanswered(command):
            problems.append(problem)
    assert not problems, problems


@pytest.mark.slow  # starts a process a command
def test_a_misspelled_subcommand_or_option_is_caught():
    for line in (
        "hf uplod USER/SPACE DIR . --repo-type space",
        "hf upload USER/SPACE DIR . --repo-typ space",
        "python -m stsdemo sitee DIR",
    ):
        assert all(unanswered(command) for command in parse(line)), line


def test_the_readme_runs_cis_test_command_and_names_the_fast_loop():
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert ci.startswith('python -m pytest -m ""')  # CI runs every test
    lines = [command.line.split("#", 1)[0].strip() for command in shell_commands(readme())]
    assert ci in lines and "python -m pytest" in lines
    addopts = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"][
        "ini_options"
    ]
    assert "-m 'not slow'" in addopts["addopts"] and "fast loop" in section(readme(), "Test it")


# ---- links ------------------------------------------------------------------------------------------------


def slugs(page: Path) -> set[str]:
    """The anchors GitHub gives the page's headings (punctuation dropped, spaces to hyphens, repeats numbered)."""
    found: dict[str, int] = {}
    for line in ANY_FENCE.sub("", page.read_text(encoding="utf-8")).splitlines():
        if heading := re.match(r"#{1,6} (.+)", line):
            slug = re.sub(r"[^\w\- ]", "", heading[1].strip().lower()).replace(" ", "-")
            found[slug if slug not in found else f"{slug}-{found[slug]}"] = found.get(slug, 0) + 1
    return set(found)


def broken_links(page: Path) -> list[str]:
    broken = []
    for target in LINK.findall(ANY_FENCE.sub("", page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target) or target.startswith("?"):
            continue  # a web address, or an app link (relative to wherever the app runs)
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(f"{page.name}: {target} (no file)")
        elif anchor and (linked.suffix != ".md" or anchor not in slugs(linked)):
            broken.append(f"{page.name}: {target} (no heading)")
    return broken


def test_every_relative_link_in_the_readme_and_the_pages_its_rest_moved_to_reaches_a_file_and_heading():
    pages = [README, *(REPO / name for name in MOVED_TO)]
    linked = {(REPO / target.partition("#")[0]).resolve() for target in LINK.findall(readme())}
    assert {(REPO / name).resolve() for name in (*MOVED_TO, "LICENSE", "docs/evidence.md")} <= linked
    broken = [link for page in pages for link in broken_links(page)]
    assert not broken, broken


def test_a_link_to_a_missing_file_or_heading_is_caught(tmp_path):
    (tmp_path / "other.md").write_text("# Other page\n\n## A heading (`python -m x`)\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](other.md#a-heading-python--m-x) [file](nowhere.md) [heading](other.md#nowhere) "
        "[app](?tab=loss) [web](https://example.org)\n",
        encoding="utf-8",
    )
    assert broken_links(page) == ["page.md: nowhere.md (no file)", "page.md: other.md#nowhere (no heading)"]


# ---- the start-here path ----------------------------------------------------------------------------------


def test_the_readme_lists_the_start_here_path_in_order_and_lesson_md_tells_each_step():
    path = section(readme(), "Start here")
    places = [path.index(f"**{step.title.en}**") for step in lesson.STEPS]
    assert places == sorted(places)
    assert all(f"`{step.query}`" in path for step in lesson.STEPS) and "`?tab=bench`" in path
    page = (REPO / "docs" / "lesson.md").read_text(encoding="utf-8")
    for step in lesson.STEPS:
        story = step.story
        said = (story.question.ask, story.question.choices[story.question.answer], story.watch, story.reveal)
        parts = (step.title.en, f"`{step.query}`", step.do.en, *(plain(words.en) for words in said))
        assert all(part in page for part in parts), step.title.en
    for text in (readme(), page):  # app links are relative to wherever the app runs, never a fixed port
        assert re.search(r"7860/\?tab=", text) is None


def test_the_readme_points_at_the_evidence_and_quotes_no_timing():
    text = readme()
    assert "BEGIN EVIDENCE" not in text and "(docs/evidence.md)" in text and "(docs/results.md)" in text
    assert re.search(r"\d+ s\b|\bminutes?\b|pairs/s", text) is None  # no timing the README cannot re-measure
