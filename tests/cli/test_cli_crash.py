"""kill -9 of ``open-notebook add`` at moments spread over a run (``bench.crash`` at full size).

After each kill the database opens again, every source in it is whole (all chunks, embedded,
searchable, found in a context), and the same ``add`` again completes every file exactly once.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from bench.crash import Harness, problems

FILES = 24
TRIALS = 5


@pytest.mark.slow
async def test_add_killed_at_random_moments_loses_and_half_writes_nothing(tmp_path: Path) -> None:
    harness = Harness(tmp_path, FILES, seed=7, provider="fake")
    await harness.measure()
    rng = random.Random(7)
    # One moment in each fifth of the run (and past its end), so start-up, the first commits,
    # the long files' staging and the last commits are all hit.
    fractions = [1.1 * (index + rng.random()) / TRIALS for index in range(TRIALS)]

    found = {}
    for index, fraction in enumerate(fractions):
        trial = await harness.trial(index, fraction, sample=FILES)
        found[f"{fraction:.2f} of the run"] = problems(trial, FILES)

    assert found == {moment: [] for moment in found}
