"""A build decides by the same values, and sends the same bytes, under any string hash seed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# A question's terms and a sentence's terms are sets, iterated in an order that follows the
# process's hash seed: a sum of their idf taken in that order rounds differently from one
# process to the next, and a near tie between two sentences could fall either way.
_BUILD = """
import sys
sys.path.insert(0, sys.argv[1])
from passage_support import WEIGHTS, chunked, ranked, record
from open_notebook.context import assemble_passages
from open_notebook.context._question.value import units_of
from open_notebook.search import query_terms
from open_notebook.tokens import BpeTokenCounter

words = "turbine blade icing ridge fog dawn leading edge rime supercooled wind farm".split()
text = " ".join(
    f"The {words[i % 12]} and {words[(i * 5) % 12]} near {words[(i * 7) % 12]} "
    f"shift {words[(i * 3) % 12]} at {words[(i * 11) % 12]} site {i}."
    for i in range(40)
)
chunks = ranked(chunked(record("a", "Icing"), text, per_chunk=3), list(range(20)))
question = query_terms(
    "how does rime ice build on the leading edge of turbine blades in supercooled fog at dawn"
)
print([unit.value for unit in units_of(chunks, question, type_weights=WEIGHTS)])
for budget in (60, 120, 240):
    built = assemble_passages(
        chunks, question, counter=BpeTokenCounter(), budget=budget, type_weights=WEIGHTS
    )
    print(built.content_hash, [block.relevance for block in built.blocks])
"""


def test_a_build_is_the_same_under_any_hash_seed() -> None:
    support = str(Path(__file__).parent)
    outputs = set()
    for seed in ("1", "2", "3", "4"):
        done = subprocess.run(
            [sys.executable, "-c", _BUILD, support],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1
