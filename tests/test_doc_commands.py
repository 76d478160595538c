"""The command lines of the README and docs/ are true to the program: every ``inpaint ...`` line
of their code blocks parses with the command's own parsers, and the cheap ones (``--help``,
``--version``, ``inpaint devices --no-check``) run."""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from inpaint import cli

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
#: A line the command prints (quoted in the docs), not one to type.
MESSAGE = re.compile(r"^\s*inpaint( [\w-]+)?: ")
#: The languages of the code blocks read as shell lines ('' for a block without one).
SHELLS = {"", "sh", "bash", "shell", "console"}
#: Shell words that end one command and start the next.
SEPARATORS = {"&&", "||", ";", "|", "&"}
#: Command lines (comments left out) written with placeholders that no parser takes as they
#: stand, and why.
PLACEHOLDERS = {
    "inpaint FOLDER -o OUT --method criminisi --alpha 0.05 --patch 17 -q [-j 2]":
        "'[-j 2]' marks an optional part",
}


def _blocks(text: str) -> list[str]:
    """The lines of the fenced shell code blocks (no language, or a shell's), backslash
    continuations joined."""
    lines, inside, shell, pending = [], False, False, ""
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            inside, pending = not inside, ""
            shell = line.strip()[3:] in SHELLS
            continue
        if not inside or not shell:
            continue
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        lines.append(pending + line)
        pending = ""
    return lines


def _commands(line: str) -> list[list[str]]:
    """The argument lists of the ``inpaint`` commands on one shell line (after ``&&``, ``;``...,
    with environment assignments, comments and redirections left out)."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    words, found, current = list(lexer), [], []
    for word in words + [";"]:
        if word in SEPARATORS:
            while current and re.match(r"^\w+=", current[0]):
                current.pop(0)
            if current and os.path.basename(current[0]) == "inpaint":
                found.append(current[1:])
            current = []
        elif word in ("<", ">", ">>", "2>"):
            current.append(None)  # the next word is a file, not an argument
        elif current and current[-1] is None:
            current.pop()
        else:
            current.append(word)
    return found


def _documented() -> list[tuple[str, str, list[str]]]:
    found = []
    for doc in DOCS:
        for line in _blocks(doc.read_text(encoding="utf-8")):
            if MESSAGE.match(line) or not re.search(r"(^|[\s;&|/])inpaint(\s|$)", line):
                continue
            for argv in _commands(line):
                found.append((doc.name, "inpaint " + " ".join(argv), argv))
    return found


DOCUMENTED = _documented()
CHEAP = [(doc, line, argv) for doc, line, argv in DOCUMENTED
         if {"--help", "-h", "--version"} & set(argv) or argv[:1] == ["devices"] and "--no-check" in argv]


def test_the_docs_have_command_lines_and_cheap_ones():
    docs = {doc for doc, _, _ in DOCUMENTED}
    assert "README.md" in docs and len(docs) > 1
    assert {tuple(argv) for _, _, argv in CHEAP} >= {("--help",), ("devices", "--no-check")}
    assert set(PLACEHOLDERS) <= {line for _, line, _ in DOCUMENTED}, "a placeholder line is no longer documented"


class _Parsed(BaseException):
    """Raised by the parser once the line parsed: nothing past the parsing runs."""


@pytest.mark.parametrize("doc, line, argv", DOCUMENTED, ids=[f"{d}:{' '.join(a)[:60]}" for d, _, a in DOCUMENTED])
def test_every_documented_command_line_parses(doc, line, argv, monkeypatch, capsys):
    if line in PLACEHOLDERS:
        pytest.skip(f"{doc}: {PLACEHOLDERS[line]}")
    parse = argparse.ArgumentParser.parse_args

    def parse_then_stop(self, args=None, namespace=None):
        raise _Parsed(parse(self, args, namespace))

    # Through the real dispatch (inpaint.cli.main), so each command builds its own parser.
    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parse_then_stop)
    try:
        cli.main(argv)
    except _Parsed:
        return
    except SystemExit as exc:  # --help, --version: argparse exits 0; a bad line exits 2
        assert exc.code in (0, None), f"{doc}: {line}\n{capsys.readouterr().err}"
        return
    pytest.fail(f"{doc}: {line} never reached its parser")


@pytest.mark.parametrize("doc, line, argv", CHEAP, ids=[f"{d}:{' '.join(a)}" for d, _, a in CHEAP])
def test_the_cheap_documented_commands_run(doc, line, argv, tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-m", "inpaint", *argv], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, f"{doc}: {line}\n{proc.stderr}"
    assert proc.stdout.strip() and "Traceback" not in proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_resize_help_says_how_a_resized_jpeg_is_written(tmp_path, run, capsys):
    """``inpaint resize --help`` on ``--quality``: by default a resized JPEG is encoded again with
    the input's own quantisation tables (checked on a real file), not the fill's block-by-block edit."""
    with pytest.raises(SystemExit) as exc:
        cli.main(["resize", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert exc.value.code in (0, None)
    assert "a resized JPEG is encoded again with its own quantisation tables" in help_text
    assert "outside the fill" not in help_text
    ramp = np.add.outer(np.arange(48), np.arange(64)).astype(np.uint8)
    Image.fromarray(np.dstack([ramp, ramp[::-1], 255 - ramp])).save(tmp_path / "in.jpg", quality=70)
    code, _, err = run("resize", tmp_path / "in.jpg", "--width", "60", "-o", tmp_path / "out.jpg",
                       "--backend", "numpy", "-q")
    assert code == 0, err
    with Image.open(tmp_path / "in.jpg") as a, Image.open(tmp_path / "out.jpg") as b:
        assert b.size == (60, 48) and a.quantization == b.quantization


def test_the_quick_start_comes_first_and_ci_runs_its_test_command():
    """The README's two set-up lines are within its first 25 lines, the first one plain (no
    ``--stats``), and CI runs the second one as it is written."""
    head = (REPO / "README.md").read_text(encoding="utf-8").splitlines()[:25]
    setup = [line for line in _blocks("\n".join(head)) if line.startswith("python3 -m venv .venv")]
    assert len(setup) == 2, head
    example, tests = setup
    assert _commands(example) == [["--case", "walkingman", "-o", "walkingman_removed.png"]]
    assert tests.endswith(".venv/bin/python -m pytest -n auto")
    # CI runs the same commands in the same order (other steps, such as a linter, may come between)
    ci = [part.strip() for line in (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
          if not line.lstrip().startswith("#") for part in line.split("&&")]
    steps = iter(ci)
    assert all(part.strip() in steps for part in tests.split("&&")), ci


def test_the_quick_start_activates_the_venv_before_a_bare_inpaint():
    """After the set-up line, the quick start activates the virtual environment, so that the
    README's later ``inpaint ...`` lines run as written (and not 'inpaint: command not found')."""
    lines = _blocks((REPO / "README.md").read_text(encoding="utf-8"))
    setup = next(i for i, line in enumerate(lines) if line.startswith("python3 -m venv .venv"))
    bare = next(i for i, line in enumerate(lines) if re.match(r"\s*inpaint\s", line))
    assert any(line.split("#")[0].strip() == ". .venv/bin/activate" for line in lines[setup:bare]), lines[setup:bare]


def _linked(text: str) -> list[str]:
    """The local targets of a page's Markdown links and images (no URLs, no anchors)."""
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    return [t.split("#")[0] for t in targets if t.split("#")[0] and not re.match(r"^[a-z]+:", t)]


def test_every_local_link_of_the_readme_and_docs_resolves():
    broken = [(doc.relative_to(REPO).as_posix(), target) for doc in [*DOCS, REPO / "tools" / "README.md",
                                                                      REPO / "bench" / "results" / "README.md"]
              for target in _linked(doc.read_text(encoding="utf-8")) if not (doc.parent / target).exists()]
    assert broken == []


def test_docs_hold_prose_and_the_images_it_shows_and_no_page_names_the_old_data_folders():
    """Raw measurements live in bench/results/; docs/ has pages, their images and the app's
    screenshots. Nothing tracked names the folders they came from."""
    stray = [p.relative_to(REPO).as_posix() for p in (REPO / "docs").rglob("*")
             if p.is_file() and p.suffix not in (".md", ".png", ".jpg")]
    assert stray == []
    assert not [p for p in (REPO / "docs").iterdir() if p.is_dir() and p.name not in ("quality", "screenshots")]
    assert (REPO / "bench" / "results" / "quality_pocl.json").is_file()
    old = re.compile(r"docs/(bench|h100|h200)/")
    named = [p.relative_to(REPO).as_posix() for folder in ("README.md", "CHANGELOG.md", "docs", "tools", "bench",
                                                          "tests", "inpaint", "kernels", ".ci")
             for p in ([REPO / folder] if (REPO / folder).is_file() else (REPO / folder).rglob("*"))
             if p.is_file() and p.suffix in ("", ".md", ".py", ".cl", ".json", ".txt", ".toml")
             and p.name != "test_doc_commands.py" and old.search(p.read_text(encoding="utf-8", errors="replace"))]
    assert named == []


def test_every_tool_is_in_the_tools_index():
    index = (REPO / "tools" / "README.md").read_text(encoding="utf-8")
    missing = [p.name for p in (REPO / "tools").glob("*.py") if f"`{p.name}`" not in index]
    assert missing == []


@pytest.mark.parametrize("command", [[], ["resize"]])
def test_output_help_names_every_form_that_o_takes(command, capsys):
    """``-o``: a file, ``-``, ``FORMAT:-``, and for a batch a folder, made when named with a
    trailing '/'."""
    with pytest.raises(SystemExit):
        cli.main([*command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    help_o = text[text.index("-o OUTPUT, --output OUTPUT"):][:600]
    for part in ("output image file", "'-' writes standard output", "FORMAT:- (png:-, jpg:-",
                 "for a batch, and for one image, a folder",
                 "made if its name ends in '/'"):
        assert part in help_o, help_o
    assert "an existing folder" not in help_o


def test_a_batch_makes_the_folder_the_help_promises(tmp_path, run):
    ramp = np.add.outer(np.arange(24), np.arange(32)).astype(np.uint8)
    mask = np.zeros((24, 32), np.uint8)
    mask[8:12, 10:14] = 255
    for name in ("a", "b"):
        Image.fromarray(np.dstack([ramp, ramp, ramp])).save(tmp_path / f"{name}.png")
        Image.fromarray(mask).save(tmp_path / f"{name}_mask.png")
    code, _, err = run(tmp_path / "a.png", tmp_path / "b.png", "-o", f"{tmp_path / 'new' / 'done'}/",
                       "--backend", "numpy", "-q")
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "new" / "done").iterdir()) == ["a.png", "b.png"]


def test_bench_help_says_what_the_default_benchmark_runs():
    from inpaint_bench import cli as bench_cli

    text = " ".join(bench_cli.build_parser().format_help().split())
    assert "numpy vs OpenCL for the default fill and for the paper's pipeline" in text
    assert "1 with --quality, --objects or --quick alone" in text
    assert "the paper's pipeline: findBestPatch variant" in text
    for name in bench_cli.TOOLS:
        assert f"'inpaint bench {name} --help'" in text
