"""The repository stands alone: what its files cite is in it.

A clone has no product specification, decision log or research notes beside it, so no
tracked file may point at them; the project's own `docs/` says what they said. And every
`.md` file a tracked file names, with the `#anchor` it names, exists: a renamed heading in
`docs/` fails here until its citations follow.
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Spelled in pieces, so this file does not cite what it forbids.
OUTSIDE = re.compile("|".join([
    r"\bSPEC" + r"\.md", r"\bDECISIONS" + r"\.md", r"\breference" + r"/\w+\.md", r"\.\./shared" + r"\b",
]))
CITED_MD = re.compile(r"(?<![\w/.:-])((?:\.\./)*[\w./-]*?[\w-]+\.md)((?:#[\w-]+)(?:,\s*#[\w-]+)*)?")


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
