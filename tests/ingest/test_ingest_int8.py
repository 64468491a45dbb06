"""The int8 MiniLM: built reproducibly from the pinned package, checked, close to the original."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from open_notebook.embeddings import OnnxMiniLMEmbedder
from open_notebook.embeddings._files import sha256_of
from open_notebook.embeddings._int8 import (
    INT8_FILE,
    INT8_SHA256,
    _build_in_child,
    ensure_int8_model,
)
from open_notebook.errors import ModelError
from open_notebook.text import Script

pytestmark = pytest.mark.slow

TEXTS = [
    "The boundary layer separates from the wing at a high angle of attack.",
    "Sourdough bread rises because wild yeast ferments the dough overnight.",
    "Heat transfer to a blunt body in hypersonic flow.",
    "A kitten naps on the couch.",
]


@pytest.fixture(scope="module")
def models_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="module")
def int8(models_dir: Path) -> OnnxMiniLMEmbedder:
    embedder = OnnxMiniLMEmbedder.int8(models_dir, threads=1)
    embedder.warm_up()
    return embedder


def test_the_build_is_the_pinned_file_and_runs_int8_products(
    int8: OnnxMiniLMEmbedder, models_dir: Path
) -> None:
    import onnx

    built = models_dir / INT8_FILE
    assert sha256_of(built) == INT8_SHA256
    operators = {node.op_type for node in onnx.load(str(built)).graph.node}
    assert {"MatMulInteger", "DynamicQuantizeLinear"} <= operators
    before = built.stat().st_mtime_ns
    assert ensure_int8_model(models_dir) == built  # an intact file is not built again
    assert built.stat().st_mtime_ns == before
    assert not list(models_dir.glob("*.partial"))


def test_int8_vectors_stay_close_to_the_package_model(int8: OnnxMiniLMEmbedder) -> None:
    legacy = OnnxMiniLMEmbedder(threads=1)
    new, old = int8.embed_documents(TEXTS), legacy.embed_documents(TEXTS)
    cosines = (new * old).sum(axis=1)
    # Without VNNI, onnxruntime's uint8 x int8 kernel sums pairs of products into 16 bits and
    # saturates: the vectors sit a little farther from the package's (0.9885 for the last text
    # on an AVX2-only CPU, above 0.99 with VNNI; docs/quality.md).
    assert cosines.mean() > 0.99
    assert cosines.min() > 0.985
    assert np.allclose(np.linalg.norm(new, axis=1), 1.0, atol=1e-5)
    assert int8.model_id != legacy.model_id  # stored vectors say which build made them
    assert int8.scripts == frozenset({Script.LATIN})
    similar = new[0] @ int8.embed_query("flow separation on a wing")
    assert similar > new[1] @ int8.embed_query("flow separation on a wing")


def test_a_damaged_build_is_rebuilt_and_a_wrong_one_refused(tmp_path: Path) -> None:
    target = tmp_path / INT8_FILE
    target.write_bytes(b"not a model")
    assert sha256_of(ensure_int8_model(tmp_path)) == INT8_SHA256
    os.truncate(target, 1000)
    embedder = OnnxMiniLMEmbedder(model_path=target, model_sha256=INT8_SHA256)
    with pytest.raises(ModelError, match="sha256"):
        embedder.embed_query("x")


def test_a_failed_build_is_a_model_error_naming_the_cause(tmp_path: Path) -> None:
    # The build runs in a child interpreter (its memory leaves with it); a failure there is
    # reported here, with the child's last error line.
    with pytest.raises(ModelError, match="building the int8 embedding model failed: .+"):
        _build_in_child(tmp_path / "no such folder" / INT8_FILE)
