"""Python clients generated from the spec with openapi-python-client, as a user makes them.

`generate` fails on any generator warning: a warning means a piece of the API is missing
from the client (the generator skips what it cannot type).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

BIN = Path(sys.executable).parent
PACKAGE = "fanout_client"


def generate(source: Path | str, out: Path, meta: str = "none") -> Path:
    """Generate the client from a file path or a URL into `out`; the package's folder."""
    config = out.parent / f"{out.name}-config.yaml"
    config.write_text(yaml.safe_dump({"project_name_override": "fanout-client", "package_name_override": PACKAGE}))
    where = ["--url", source] if str(source).startswith("http") else ["--path", str(source)]
    done = subprocess.run(
        [str(BIN / "openapi-python-client"), "generate", *where, "--output-path", str(out), "--meta", meta,
         "--config", str(config), "--fail-on-warning", "--overwrite"],
        capture_output=True, text=True, timeout=120,
        # The generator formats its output with the ruff it installs next to itself.
        env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"},
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"openapi-python-client failed:\n{output}"
    assert "Warning" not in output, f"openapi-python-client warned:\n{output}"
    return out if meta == "none" else out / PACKAGE


def model_names(package: Path) -> set[str]:
    """The model classes' module names (one module a model)."""
    return {p.stem for p in (package / "models").glob("*.py") if p.stem != "__init__"}
