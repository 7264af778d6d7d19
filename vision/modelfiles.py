"""Building the model files the reader prefers, from the shipped exports: a detector that takes an input of any
size and an 8-bit classifier. Both record the digest of the export they were made from, so the reader ignores
them after a retrain (``vision.detector``). Needs the ``train`` extra; serving never imports this module.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.crops import to_input
from vision.detector import (
    CLASSIFIER_FILE,
    DETECTOR_FILE,
    DYNAMIC_DETECTOR_FILE,
    INT8_CLASSIFIER_FILE,
    MODELS_DIR,
    to_blob,
)
from vision.inference import SOURCE_DIGEST, file_digest


def make_dynamic_detector(src: Path = MODELS_DIR / DETECTOR_FILE, dst: Path | None = None) -> Path:
    """Write ``card-index-dynamic.onnx`` beside ``src``: the same graph and weights, with an input of any height
    and width and the raw head maps as outputs (``box_0, cls_0, box_1, cls_1, ...``, finest level first), checked
    against ``src`` on its own input size before it is written. Needs ``onnx`` (the ``train`` extra).

        python -c "from vision.modelfiles import make_dynamic_detector; make_dynamic_detector()"

    Two things tie the export to 640x640: the attention block's reshapes name the grid's size, and the head
    decodes against anchor and stride tables of that grid. The first are rewritten to take the size from the
    tensor itself; the head is cut before the tables and decoded in ``decode_maps`` instead."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    dst = dst or src.with_name(DYNAMIC_DETECTOR_FILE)
    model = onnx.load(str(src))
    g = model.graph
    consts = {n.output[0]: numpy_helper.to_array(n.attribute[0].t) for n in g.node if n.op_type == "Constant"}
    by_name = {n.name: n for n in g.node}
    consumers: dict[str, list[Any]] = {}
    for n in g.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
    image = g.input[0]
    dims = image.type.tensor_type.shape.dim
    imgsz = dims[2].dim_value
    for d, name in ((dims[2], "height"), (dims[3], "width")):
        d.ClearField("dim_value")
        d.dim_param = name

    added: list[Any] = []
    levels: dict[str, list[str]] = {}  # the head's box / class maps, level by level
    for n in g.node:
        if n.op_type != "Reshape" or n.input[1] not in consts:
            continue
        shape = consts[n.input[1]]
        if len(shape) == 3 and shape[-1] == -1:
            concat = consumers[n.output[0]][0]
            levels.setdefault(concat.output[0], []).append(n.input[0])
        elif "/attn/" in n.name and len(shape) == 4:
            name = n.name + "_any_size"
            if shape[1] == 1:  # (1, heads, channels, h*w): let the grid's size follow
                fixed = numpy_helper.from_array(np.array([*shape[:3], -1], np.int64), name)
                added.append(helper.make_node("Constant", [], [name], value=fixed))
            else:  # (1, channels, h, w): the h and w of the attention block's own input
                qkv = by_name[n.name.rsplit("/", 1)[0] + "/qkv/conv/Conv"]
                head = numpy_helper.from_array(np.array(shape[:2], np.int64), name + "_c")
                added += [
                    helper.make_node("Constant", [], [head.name], value=head),
                    helper.make_node("Shape", [qkv.input[0]], [name + "_hw"], start=2, end=4),
                    helper.make_node("Concat", [head.name, name + "_hw"], [name], axis=0),
                ]
            n.input[1] = name
    if len(levels) != 2:
        raise ValueError(f"{src}: not the YOLO head this converter knows (box and class maps per level)")
    # The box maps are the ones the distribution focal loss ("dfl") layer reads; the other concat holds the logits.
    box_key = next(k for k in levels if any("/dfl/" in c.name for c in consumers.get(k, [])))
    (cls_key,) = (k for k in levels if k != box_key)
    outputs: list[str] = []
    named: list[Any] = []
    for k, (b, c) in enumerate(zip(levels[box_key], levels[cls_key], strict=True)):
        for kind, t in (("box", b), ("cls", c)):
            outputs.append(f"{kind}_{k}")
            named.append(helper.make_node("Identity", [t], [outputs[-1]]))
    nodes = added + list(g.node) + named
    # Keep what the new outputs need, in an order where every input is made before it is used.
    needed, keep = set(outputs), []
    for n in reversed(nodes):
        if any(o in needed for o in n.output):
            keep.append(n)
            needed.update(n.input)
    ready = {image.name, ""} | {i.name for i in g.initializer}
    ordered: list[Any] = []
    pending = keep[::-1]
    while pending:
        later = [n for n in pending if not all(i in ready for i in n.input)]
        for n in pending:
            if n not in later:
                ordered.append(n)
                ready.update(n.output)
        if len(later) == len(pending):
            raise ValueError(f"{src}: the cut graph has a cycle or a missing input")
        pending = later
    del g.node[:]
    g.node.extend(ordered)
    used = {i for n in ordered for i in n.input}
    inits = [i for i in g.initializer if i.name in used]
    del g.initializer[:]
    g.initializer.extend(inits)
    del g.value_info[:]
    del g.output[:]
    g.output.extend(
        helper.make_tensor_value_info(o, TensorProto.FLOAT, [1, None, None, None]) for o in outputs
    )
    del model.metadata_props[:]
    for key, value in (
        (SOURCE_DIGEST, file_digest(src)),
        ("imgsz", str(imgsz)),
        ("made_by", "vision.detector.make_dynamic_detector"),
    ):
        model.metadata_props.add(key=key, value=value)
    onnx.checker.check_model(model)
    _check_same_boxes(src, model.SerializeToString(), imgsz)
    onnx.save(model, str(dst))
    return dst


def _check_same_boxes(src: Path, dynamic: bytes, imgsz: int) -> None:
    """Raise unless the cut graph, decoded, gives ``src``'s output on a fixed pattern at ``src``'s input size."""
    import onnxruntime as ort

    rng = np.random.default_rng(0)
    img = cv2.GaussianBlur(rng.integers(0, 256, (imgsz, imgsz, 3), dtype=np.uint8), (0, 0), 3)
    blob = to_blob(np.asarray(img, np.uint8))
    ref = ort.InferenceSession(str(src), providers=["CPUExecutionProvider"]).run(None, {"images": blob})[0]
    maps = ort.InferenceSession(dynamic, providers=["CPUExecutionProvider"]).run(None, {"images": blob})
    got = []
    for box, cls in zip(maps[0::2], maps[1::2], strict=True):
        _, nc, gh, gw = cls.shape
        stride = imgsz / gh
        reg = box[0].reshape(4, -1, gh * gw)
        e = np.exp(reg - reg.max(axis=1, keepdims=True))
        dist = (e * np.arange(reg.shape[1], dtype=np.float32)[None, :, None]).sum(axis=1) / e.sum(axis=1)
        ax, ay = np.arange(gh * gw) % gw + 0.5, np.arange(gh * gw) // gw + 0.5
        x1, y1, x2, y2 = ax - dist[0], ay - dist[1], ax + dist[2], ay + dist[3]
        xywh = np.stack([(x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1]) * stride
        got.append(np.concatenate([xywh, 1 / (1 + np.exp(-cls[0].reshape(nc, -1)))]))
    diff = np.abs(np.concatenate(got, axis=1) - ref[0])
    if diff[:4].max() > 0.05 or diff[4:].max() > 1e-4:
        raise ValueError(
            f"{src}: the dynamic graph does not reproduce the export (largest difference {diff.max()})"
        )


# Calibration scenes for make_int8_classifier: training-pool scenes (seeds of the training split itself, so no
# validation, dev or held-out picture decides a quantisation range).
INT8_CALIBRATION_SEEDS = range(100)


def make_int8_classifier(src: Path = MODELS_DIR / CLASSIFIER_FILE, dst: Path | None = None) -> Path:
    """Write ``index-classifier-int8.onnx`` beside ``src``: the same classifier with 8-bit weights (per output
    channel) and activations, their ranges measured (min/max) on the crops of ``INT8_CALIBRATION_SEEDS``'s
    training-pool scenes as the classifier was trained on them. Needs ``onnx`` and the renderer's fonts (the
    ``train`` extra and ``.ci/system-deps``); the same fonts give the same file.

        python -c "from vision.modelfiles import make_int8_classifier; make_int8_classifier()"
    """
    import tempfile

    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    from vision.dataset import scene_crops  # the training crops: each index jittered, and the "none" crops
    from vision.render import Split
    from vision.scene import make_scene

    dst = dst or src.with_name(INT8_CLASSIFIER_FILE)
    crops = np.concatenate(
        [
            scene_crops(make_scene(seed, Split.TRAIN), np.random.default_rng([seed, 7]))[0]
            for seed in INT8_CALIBRATION_SEEDS
        ]
    )
    x = to_input(crops)
    name = onnx.load(str(src)).graph.input[0].name

    class Crops(CalibrationDataReader):  # type: ignore[misc]
        def __init__(self) -> None:
            self._batches = iter(x[i : i + 64] for i in range(0, len(x), 64))

        def get_next(self) -> dict[str, np.ndarray] | None:
            batch = next(self._batches, None)
            return None if batch is None else {name: batch}

    with tempfile.TemporaryDirectory() as tmp:
        pre, out = Path(tmp) / "pre.onnx", Path(tmp) / "int8.onnx"
        quant_pre_process(str(src), str(pre))
        quantize_static(
            str(pre),
            str(out),
            Crops(),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibrate_method=CalibrationMethod.MinMax,
        )
        model = onnx.load(str(out))
    for key, value in (
        (SOURCE_DIGEST, file_digest(src)),
        (
            "calibration",
            f"crops of training scenes {INT8_CALIBRATION_SEEDS.start}-{INT8_CALIBRATION_SEEDS.stop - 1}",
        ),
        ("made_by", "vision.modelfiles.make_int8_classifier"),
    ):
        model.metadata_props.add(key=key, value=value)
    onnx.save(model, str(dst))
    return dst
