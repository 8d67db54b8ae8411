"""How long caption counting takes on hostile and ordinary input; prints its figures.

Run: python bench/bench_caption_counting.py
"""
from __future__ import annotations

import time

from fanout.platforms.threads.text import threads_length
from fanout.platforms.x.text import x_weighted_length

CASES = {
    "dotted words, 50k chars (twitter-text's slow case)": ("a." * 126 + "-.com ") * 190,
    "ordinary caption with URLs and emoji, 280 chars": ("Launch day! 🚀 https://example.com/launch #ship " * 6)[:280],
    "10k plain ASCII": "x" * 10_000,
}


def measure(fn, text: str, repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        fn(text)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    for name, text in CASES.items():
        for fn in (x_weighted_length, threads_length):
            print(f"{fn.__name__:<20} {name:<55} {measure(fn, text) * 1000:9.2f} ms (best of 5)")


if __name__ == "__main__":
    main()
