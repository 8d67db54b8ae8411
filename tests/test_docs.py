"""The repository stands alone: what its files cite is in it.

A clone has no product specification, decision log or research notes beside it, so no
tracked file may point at them; the project's own `docs/` says what they said. And every
`.md` file a tracked file names, with the `#anchor` it names, exists: a renamed heading in
`docs/` fails here until its citations follow. The documents people read (DOCS) cite
files, folders and tests of the repository as code or links; each of those exists too.
"""
from __future__ import annotations

import ast
import functools
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Spelled in pieces, so this file does not cite what it forbids.
OUTSIDE = re.compile("|".join([
    r"\bSPEC" + r"\.md", r"\bDECISIONS" + r"\.md", r"\breference" + r"/\w+\.md", r"\.\./shared" + r"\b",
]))
CITED_MD = re.compile(r"(?<![\w/.:-])((?:\.\./)*[\w./-]*?[\w-]+\.md)((?:#[\w-]+)(?:,\s*#[\w-]+)*)?")

# The documents a reader follows, and what in them names a file: code (backticks, fenced
# blocks) and link targets. Plain prose is not read: "fanout/reference" in a table is a ratio.
DOCS = ["README.md", "docs/*.md", "bench/README.md", "tests/emulators/README.md", "contracts/SPEC_COVERAGE.md"]
FENCED = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
CODE_SPAN = re.compile(r"`([^`\n]+)`")
LINK_TARGET = re.compile(r"\]\(([^)\s]+)\)")
# A path under a top-level folder of the repository, or one of its top-level files; with the
# test (`::name`) it names. Globs (`docs/*.md`) must match something.
REPO_PATH = re.compile(
    r"(?<![\w./$~-])((?:\.\./)*(?:\.ci|bench|contracts|docs|fanout|tests)/[\w./*-]*"
    r"|(?:\.\./)*(?:openapi\.yaml|setup\.cfg|pyproject\.toml|README\.md)\b)(?:::(\w+))?")
# A whole code span that is a file name alone: a file of the citing document's folder
# (`x.py` in tests/emulators/README.md), or of the root.
FILE_NAME = re.compile(r"([\w-]+\.(?:py|md|yaml|toml|cfg|json|sh))(?:::(\w+))?")
# Files the README has its reader make, not the repository's.
MADE_BY_THE_READER = {"sdk_example.py"}


def tracked_files() -> list[Path]:
    """The files git tracks, or, outside a checkout, the tree without local state."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        names = [name for name in listed.decode().split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", ".venv", "var", "__pycache__"}
        names = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
                 if p.is_file() and not skip & set(p.relative_to(ROOT).parts) and ".egg-info" not in str(p)]
    return [ROOT / name for name in names if (ROOT / name).is_file()]


def texts() -> dict[Path, str]:
    found = {}
    for path in tracked_files():
        try:
            found[path] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
    return found


def slug(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(markdown: str) -> set[str]:
    outside_fences = re.sub(r"^```.*?^```", "", markdown, flags=re.S | re.M)
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*$", outside_fences, flags=re.M)}


def resolve(citing: Path, cited: str) -> Path | None:
    """The file `cited` names: relative to the citing file, else to the repository root."""
    for base in (citing.parent, ROOT):
        target = (base / cited).resolve()
        if target.is_file():
            return target
    return None


def cited_code(markdown: str) -> list[tuple[int, str]]:
    """(offset, text) of what a document writes as code or links to."""
    found = [(m.start(1), m.group(1)) for m in FENCED.finditer(markdown)]
    outside = FENCED.sub(lambda m: " " * len(m.group(0)), markdown)  # offsets kept
    found += [(m.start(1), m.group(1)) for m in CODE_SPAN.finditer(outside)]
    found += [(m.start(1), m.group(1)) for m in LINK_TARGET.finditer(outside)]
    return found


def cited_paths(markdown: str) -> list[tuple[int, str, str | None]]:
    """(offset, path, test or None) of every repository path a document cites."""
    cited = []
    for offset, code in cited_code(markdown):
        whole = FILE_NAME.fullmatch(code)
        if whole and whole.group(1) in MADE_BY_THE_READER:
            continue
        if whole:
            cited.append((offset, whole.group(1), whole.group(2)))
            continue
        cited += [(offset + m.start(), m.group(1).rstrip("."), m.group(2)) for m in REPO_PATH.finditer(code)]
    return cited


def find_cited(citing: Path, cited: str) -> Path | None:
    """The file or folder (the first match of a glob) `cited` names, relative to the citing
    file, else to the root."""
    for base in (citing.parent, ROOT):
        found = sorted(base.glob(cited)) if "*" in cited else [base / cited]
        if found and found[0].exists():
            return found[0]
    return None


def defines(path: Path, name: str) -> bool:
    return name in names_defined(path)


@functools.cache  # a test file is cited by hundreds of lines: parse it once
def names_defined(path: Path) -> frozenset[str]:
    tree = ast.parse(path.read_text())
    return frozenset(node.name for node in ast.walk(tree)
                     if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))


def docs() -> list[Path]:
    return sorted({path for pattern in DOCS for path in ROOT.glob(pattern)})


def test_no_tracked_file_cites_documents_outside_the_repository():
    found = [f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
             for path, text in texts().items() for m in OUTSIDE.finditer(text)]
    assert not found, "cite openapi.yaml, docs/ or a test instead:\n" + "\n".join(found)


def test_every_cited_markdown_file_and_anchor_exists():
    missing = []
    for path, text in texts().items():
        for m in CITED_MD.finditer(text):
            where = f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}"
            target = resolve(path, m.group(1))
            if target is None:
                missing.append(f"{where}: no file {m.group(1)}")
                continue
            wanted = re.findall(r"#([\w-]+)", m.group(2) or "")
            unknown = [a for a in wanted if a not in anchors(target.read_text())]
            if unknown:
                missing.append(f"{where}: {m.group(1)} has no heading for #{', #'.join(unknown)}")
    assert not missing, "\n".join(missing)


def test_every_path_the_docs_cite_exists():
    missing = []
    for doc in docs():
        text = doc.read_text()
        for offset, cited, test in cited_paths(text):
            where = f"{doc.relative_to(ROOT)}:{text.count(chr(10), 0, offset) + 1}"
            found = find_cited(doc, cited)
            if found is None:
                missing.append(f"{where}: no file or folder {cited}")
            elif test and not (found.suffix == ".py" and defines(found, test)):
                missing.append(f"{where}: {cited} defines no {test}")
    assert not missing, "\n".join(missing)


def test_the_cited_paths_are_read_from_code_and_links_only():
    text = ("See `fanout/app.py` and [the spec](openapi.yaml), `x.py`, `tests/test_y.py::test_z`.\n"
            "```\nfanout/tasks/   the queue\n```\n| fanout/reference | 0.8 |\n`$FANOUT_DATA_DIR/metrics` `var/x.db`\n")
    assert [(path, test) for _, path, test in cited_paths(text)] == [
        ("fanout/tasks/", None), ("fanout/app.py", None), ("x.py", None), ("tests/test_y.py", "test_z"),
        ("openapi.yaml", None)]


def test_docs_cited_by_the_code_are_there_and_linked_from_the_readme():
    readme = (ROOT / "README.md").read_text()
    for name in ("architecture", "decisions", "platforms", "reliability"):
        assert (ROOT / "docs" / f"{name}.md").is_file()
        assert f"(docs/{name}.md)" in readme, f"the README does not link docs/{name}.md"


def test_the_anchor_rules_follow_github():
    assert slug("Names and ids") == "names-and-ids"
    assert slug("The `fanout` command") == "the-fanout-command"
    assert slug("Deliveries at least once") == "deliveries-at-least-once"
    assert anchors("# Top\n```sh\n# not a heading\n```\n## Sub part\n") == {"top", "sub-part"}


def test_the_readmes_module_list_names_every_module_and_folder_of_the_package():
    development = (ROOT / "README.md").read_text().split("## Development", 1)[1]
    listed = set(re.findall(r"^(fanout/[\w./]+)", FENCED.search(development).group(1), re.M))
    package = {f"fanout/{p.name}" + ("/" if p.is_dir() else "") for p in (ROOT / "fanout").iterdir()
               if p.name not in ("__init__.py", "__pycache__") and (p.suffix in (".py", ".yaml") or p.is_dir())}
    assert package - listed == set() and listed - package == set()


def test_the_readmes_module_list_names_every_module_of_a_folder_it_lists_module_by_module():
    development = (ROOT / "README.md").read_text().split("## Development", 1)[1]
    listing = FENCED.search(development).group(1)
    folders = re.findall(r"^(fanout/[\w/]+/)[^\n]*\n((?:  \w[^\n]*\n)+)", listing, re.M)
    assert folders, "no folder of the package is listed module by module"
    for folder, lines in folders:
        listed = set(re.findall(r"^  ([\w.]+\.py)\b", lines, re.M))
        package = {p.name for p in (ROOT / folder).glob("*.py") if p.name != "__init__.py"}
        assert package - listed == set() and listed - package == set(), folder
