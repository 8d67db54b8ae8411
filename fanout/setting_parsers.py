"""How a setting's text is read, for the core settings (fanout/core_settings.py) and the
platforms' (fanout/platforms/<p>/settings.py) alike. Each parser takes the text as the
reader hands it over and raises ValueError saying what it should be ("must be ..."); the
reader puts the variable's name before that. A parser with a `range` shows it, for the
README's settings table (tests/test_settings_table.py).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

# No bound worth stating: a count of bytes or seconds so large no one means it.
NO_BOUND = 10**12


@dataclass(frozen=True)
class WholeNumber:
    """A whole number of `what` from 1 to `most`, in ASCII digits; spaces around it are
    dropped, but the text is quoted as given."""

    what: str
    most: int = NO_BOUND

    def __call__(self, text: str) -> int:
        digits = text.strip()
        # Length first: int() of thousands of digits raises, and no setting needs 13 of them.
        if not (digits.isascii() and digits.isdigit()) or len(digits) > 13 or not 1 <= int(digits) <= self.most:
            bound = f"from 1 to {self.most}" if self.most < NO_BOUND else "at least 1"
            raise ValueError(f"must be a whole number of {self.what}, {bound}, not {text!r}")
        return int(digits)

    @property
    def range(self) -> str | None:
        return f"1-{self.most}" if self.most < NO_BOUND else None


@dataclass(frozen=True)
class Number:
    """A number of `what` (decimals allowed) from `least` to `most`."""

    what: str
    least: int
    most: int

    def __call__(self, text: str) -> float:
        try:
            number = float(text)
        except ValueError:
            number = float("nan")
        if not self.least <= number <= self.most:  # nan and inf fail too
            raise ValueError(f"must be {self.what} from {self.least} to {self.most}, not {text!r}")
        return number

    @property
    def range(self) -> str:
        return f"{self.least}-{self.most}"


@dataclass(frozen=True)
class Matching:
    """Text that matches `pattern` whole (described by `example`)."""

    pattern: str
    example: str

    def __call__(self, text: str) -> str:
        if not re.fullmatch(self.pattern, text):
            raise ValueError(f"must be {self.example}, not {text!r}")
        return text
