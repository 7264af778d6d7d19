"""Running the two shipped ONNX models: onnxruntime (the default) or OpenCV's DNN module, chosen once at load.

``Runtime`` names the choice; ``load_engine`` makes the ``Engine`` for it, and everything after that asks the
engine, never the name. onnxruntime sessions may be run from many threads at once and release the GIL, so
concurrent photos do not queue behind one another; an OpenCV ``Net`` may not, so that engine keeps one net per
thread.

With onnxruntime the detector runs from the any-size file and the classifier from the 8-bit one when those were
made from the exports beside them (their recorded source digest matches): a retrained model beside an old
derived file must not be read with the old weights. OpenCV runs the exports as they are.
"""

from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

# The metadata key under which a derived model file records the digest of the export it was made from.
SOURCE_DIGEST = "source_sha256"
RUNTIME_VARIABLE = "PHASE10_VISION_RUNTIME"


class Runtime(StrEnum):
    ONNXRUNTIME = "onnxruntime"
    OPENCV = "opencv"

    @classmethod
    def named(cls, name: str | None = None) -> Runtime:
        """The runtime called ``name``, else the one ``PHASE10_VISION_RUNTIME`` names, else onnxruntime."""
        name = name or os.environ.get(RUNTIME_VARIABLE) or cls.ONNXRUNTIME
        try:
            return cls(name)
        except ValueError:
            raise ValueError(f"unknown runtime {name!r}: use onnxruntime or opencv") from None


@dataclass(frozen=True, slots=True)
class ModelFiles:
    """Where the models are: the two exports, and the files derived from them that onnxruntime prefers (None to
    ignore them)."""

    detector: Path
    classifier: Path
    any_size_detector: Path | None = None
    int8_classifier: Path | None = None


class Engine(Protocol):
    """The two models ready to run, whatever runs them."""

    @property
    def imgsz(self) -> int:
        """The detector's input size (for an any-size detector, the size it was exported at)."""

    @property
    def any_size(self) -> bool:
        """The detector takes an input of any size and hands back the head's raw maps."""

    @property
    def int8(self) -> bool:
        """The classifier runs with 8-bit weights and activations."""

    def run_detector(self, blob: NDArray[np.float32]) -> list[NDArray[np.float32]]:
        """The detector's outputs for a 1 x 3 x H x W input."""

    def run_classifier(self, crops: NDArray[np.float32]) -> NDArray[np.float32]:
        """The classifier's logits (N x classes) for N x 3 x CROP x CROP inputs."""


def load_engine(runtime: Runtime, files: ModelFiles, threads: int | None = None) -> Engine:
    if runtime is Runtime.ONNXRUNTIME:
        return OnnxEngine(files, threads)
    return OpenCVEngine(files)


def default_threads() -> int:
    """Intra-op threads per session: every core, up to four, so that on a many-core server reading several
    photos at once each run does not fan its small ops out over every core."""
    return max(1, min(os.cpu_count() or 1, 4))


def session_options(threads: int | None = None) -> Any:
    """onnxruntime options for both models: every graph optimisation, one op at a time, and threads that sleep
    between ops instead of spinning. Spinning threads would hold the cores through the numpy and OpenCV work
    between two runs (crops, decoding, grouping), and on a small machine that work is on the same cores."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.intra_op_num_threads = threads or default_threads()
    opts.inter_op_num_threads = 1
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.add_session_config_entry("session.inter_op.allow_spinning", "0")
    return opts


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _session(path: Path, opts: Any) -> Any:
    import onnxruntime as ort

    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


def _derived_session(derived: Path | None, source: Path, opts: Any) -> Any:
    """A session of ``derived`` when it exists and records ``source``'s digest, else None."""
    if derived is None or not derived.exists():
        return None
    sess = _session(derived, opts)
    if sess.get_modelmeta().custom_metadata_map.get(SOURCE_DIGEST) != file_digest(source):
        return None
    return sess


class OnnxEngine:
    def __init__(self, files: ModelFiles, threads: int | None = None) -> None:
        opts = session_options(threads)
        det = _derived_session(files.any_size_detector, files.detector, opts)
        self.any_size = det is not None
        if det is None:
            det = _session(files.detector, opts)
            self.imgsz = int(det.get_inputs()[0].shape[2])
        else:
            self.imgsz = int(det.get_modelmeta().custom_metadata_map["imgsz"])
        cls = _derived_session(files.int8_classifier, files.classifier, opts)
        self.int8 = cls is not None
        if cls is None:
            cls = _session(files.classifier, opts)
        self._det, self._cls = det, cls
        self._det_in: str = det.get_inputs()[0].name
        self._cls_in: str = cls.get_inputs()[0].name

    def run_detector(self, blob: NDArray[np.float32]) -> list[NDArray[np.float32]]:
        return list(self._det.run(None, {self._det_in: blob}))

    def run_classifier(self, crops: NDArray[np.float32]) -> NDArray[np.float32]:
        return np.asarray(self._cls.run(None, {self._cls_in: crops})[0])


class OpenCVEngine:
    any_size = False
    int8 = False

    def __init__(self, files: ModelFiles) -> None:
        self._files = files
        self._local = threading.local()
        self._local.det = cv2.dnn.readNetFromONNX(str(files.detector))
        self.imgsz = _onnx_input_size(files.detector)

    def _net(self, which: str, path: Path) -> cv2.dnn.Net:
        net: cv2.dnn.Net | None = getattr(self._local, which, None)
        if net is None:
            net = cv2.dnn.readNetFromONNX(str(path))
            setattr(self._local, which, net)
        return net

    def run_detector(self, blob: NDArray[np.float32]) -> list[NDArray[np.float32]]:
        net = self._net("det", self._files.detector)
        net.setInput(blob)
        return [np.asarray(net.forward())]

    def run_classifier(self, crops: NDArray[np.float32]) -> NDArray[np.float32]:
        net = self._net("cls", self._files.classifier)
        net.setInput(crops)
        return np.asarray(net.forward())


def _onnx_input_size(path: Path) -> int:
    # OpenCV does not report an ONNX input shape; onnxruntime (same extra) reads it without running anything.
    import onnxruntime as ort

    return int(ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).get_inputs()[0].shape[2])
