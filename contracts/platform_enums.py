"""The registry's platforms, written where openapi.yaml and the event schemas list them by
name: the `Platform` enum, one property of `AccountsByPlatform` per platform (between the
comments that say they are generated), and the event schemas' `platform` enums.

Not written here: the properties of `Overrides`, each a named schema of its platform's own
content (`<Name>Override`, hand-written with the package: docs/adding-a-platform.md;
contracts/test_platform_registry.py holds them to the registry), and the rule that
`accounts` and `overrides` name only platforms in `platforms`, which the service checks
(fanout/models/upload.py) instead of one schema rule per platform.

Run `python -m contracts.platform_enums` after adding a package to the registry
(docs/adding-a-platform.md); contracts/test_platform_registry.py fails while the files
differ from what this writes.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from fanout.platforms import PLATFORMS

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "fanout" / "openapi.yaml"
EVENTS = sorted((ROOT / "contracts" / "events").glob("*.schema.json"))
MARK = "# generated from the registry: python -m contracts.platform_enums\n"

PROPERTY = """\
        {p}:
          $ref: "#/components/schemas/Text"
"""


def _between(text: str, start: str, end: str, body: str) -> str:
    """`text` with what lies between the line `start` and the line `end` replaced by `body`."""
    pattern = re.compile(rf"(^{re.escape(start)})(.*?)(^{re.escape(end)})", re.S | re.M)
    if not pattern.search(text):
        raise ValueError(f"no generated block from {start.strip()!r} to {end.strip()!r}")
    return pattern.sub(lambda m: m.group(1) + body + m.group(3), text, count=1)


def render_spec(text: str, names=PLATFORMS) -> str:
    """openapi.yaml's text with the platform lists made `names`."""
    listed = f"[{', '.join(names)}]"
    text, found = re.subn(rf"(^    Platform:\n      type: string\n      {re.escape(MARK)}      enum: )\[[^\]\n]*\]",
                          lambda m: m.group(1) + listed, text, flags=re.M)
    if found != 1:
        raise ValueError("no generated enum in the Platform schema")
    return _between(text, "        # generated from the registry, a property per platform: python -m contracts.platform_enums\n",
                    "        # end of the generated properties\n",
                    "".join(PROPERTY.format(p=p) for p in names))


def render_event_schema(text: str, names=PLATFORMS) -> str:
    """An event schema's text with its `platform` enums made `names`."""
    listed = ", ".join(f'"{p}"' for p in names)
    return re.sub(r'("platform": \{"enum": \[)[^\]]*(\])', lambda m: m.group(1) + listed + m.group(2), text)


def main() -> int:
    for path, render in [(SPEC, render_spec)] + [(p, render_event_schema) for p in EVENTS]:
        old = path.read_text()
        new = render(old)
        if new != old:
            path.write_text(new)
            print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
