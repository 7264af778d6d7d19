"""A training smoke run: tiny data, one epoch, small input; it completes and exports models that load."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ultralytics")
pytest.importorskip("torch")

from companion.cli import main
from vision.crops import CLASS_CARDS, CROP
from vision.dataset import vignette_crops_path
from vision.train import FINE_TUNE_LR, read_extra, write_extra_example


@pytest.mark.slow
def test_smoke_training_completes_and_exports(tmp_path: Path) -> None:
    import onnxruntime as ort

    out, data = tmp_path / "models", tmp_path / "data"
    assert main(["train", "--smoke", "--vignettes", "6", "--out", str(out), "--data", str(data)]) == 0
    vig = np.load(vignette_crops_path(data, 6))
    assert vig["x"].shape[1:] == (CROP, CROP, 3) and len(vig["x"]) == len(vig["y"]) > 6
    det = ort.InferenceSession(str(out / "card-index.onnx"), providers=["CPUExecutionProvider"])
    size = det.get_inputs()[0].shape[2]
    y = det.run(None, {det.get_inputs()[0].name: np.zeros((1, 3, size, size), np.float32)})[0]
    assert y.shape[:2] == (1, 5)  # x, y, w, h, score of the one class
    cls = ort.InferenceSession(str(out / "index-classifier.onnx"), providers=["CPUExecutionProvider"])
    logits = cls.run(None, {"crops": np.zeros((3, 3, CROP, CROP), np.float32)})[0]
    assert logits.shape == (3, len(CLASS_CARDS))
    assert (out / "card-index.pt").exists() and (out / "index-classifier.pt").exists()


def test_extra_examples_round_trip(tmp_path: Path) -> None:
    img = np.full((300, 400, 3), 180, np.uint8)
    card = CLASS_CARDS[7]
    write_extra_example(tmp_path, "photo1", img, [(card, (40.0, 30.0, 80.0, 90.0))])
    [(path, rows)] = read_extra(tmp_path)
    assert path.name == "photo1.jpg"
    [(cls, box)] = rows
    assert CLASS_CARDS[cls] == card
    assert np.allclose(box, (40, 30, 80, 90), atol=0.01)


def test_train_refuses_a_missing_extra_data_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["train", "--smoke", "--extra-data", str(tmp_path / "nope")]) == 2
    assert "not a folder" in capsys.readouterr().err


@pytest.mark.parametrize("rate", ["-0.1", "1.5", "nan"])
def test_train_refuses_a_hand_rate_that_is_not_a_chance(
    rate: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["train", "--smoke", "--hands", rate]) == 2
    assert "a chance, from 0 to 1" in capsys.readouterr().err


def test_detector_crops_of_hand_rich_scenes_are_kept_apart(tmp_path: Path) -> None:
    from vision.dataset import detector_crops_path
    from vision.detector import MODELS_DIR

    plain = detector_crops_path(tmp_path, 10, MODELS_DIR, 3)
    assert detector_crops_path(tmp_path, 10, MODELS_DIR, 3, None) == plain
    assert (
        len(
            {
                plain,
                detector_crops_path(tmp_path, 10, MODELS_DIR, 3, 0.6),
                detector_crops_path(tmp_path, 10, MODELS_DIR, 3, 0.5),
            }
        )
        == 3
    )


@pytest.mark.slow
def test_fine_tuning_with_confirmed_photos_completes(tmp_path: Path) -> None:
    from vision.scene import make_scene

    extra = tmp_path / "confirmed"
    for i in range(2):
        scene = make_scene(555_000 + i)
        write_extra_example(
            extra, f"p{i}", scene.image, [(pc.card, pc.box) for pc in scene.cards if pc.visible]
        )
    out = tmp_path / "models"
    args = [
        "train",
        "--smoke",
        "--extra-data",
        str(extra),
        "--out",
        str(out),
        "--data",
        str(tmp_path / "data"),
    ]
    assert main(args) == 0
    assert (tmp_path / "data" / "images" / "extra" / "p0.jpg").exists()
    labels = (tmp_path / "data" / "labels" / "extra" / "p0.txt").read_text().split("\n")
    assert all(line.startswith("0 ") for line in labels if line)  # the detector sees one class
    assert (out / "card-index.onnx").exists() and (out / "index-classifier.onnx").exists()


@pytest.fixture
def trainer_calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """What ``train_detector`` hands Ultralytics: the model it loads and the keywords of ``train``, recorded by
    a stand-in that trains nothing."""
    import ultralytics.models

    calls: dict[str, object] = {}

    class FakeYOLO:
        def __init__(self, model: str, task: str | None = None) -> None:
            calls.setdefault("model", model)

        def train(self, **kwargs: object) -> None:
            calls.update(kwargs)

        def export(self, **kwargs: object) -> str:
            return str(tmp_path / "best.onnx")

    monkeypatch.setattr(ultralytics.models, "YOLO", FakeYOLO)
    return calls


@pytest.mark.parametrize("init", [None, "models/card-index.pt"])
def test_detector_fine_tuning_starts_from_the_init_weights(
    tmp_path: Path, trainer_calls: dict[str, object], init: str | None
) -> None:
    # Ultralytics throws loaded weights away when told pretrained=False: --init must ask to keep them.
    from vision.train import MODEL_YAML, TrainConfig, train_detector

    cfg = TrainConfig(out=tmp_path, data=tmp_path, init=Path(init) if init else None)
    train_detector(cfg, tmp_path / "data.yaml", tmp_path)
    assert trainer_calls["pretrained"] is (init is not None)
    assert trainer_calls["model"] == (init if init else str(MODEL_YAML))


@pytest.mark.parametrize(("device", "cpu_workers"), [("cpu", True), ("cuda", False)])
def test_the_detector_trains_where_it_is_asked_to(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    trainer_calls: dict[str, object],
    device: str,
    cpu_workers: bool,
) -> None:
    # The shipped runs train on the CPU with two loader workers; on a GPU the augmentations stay on the CPU and
    # get more workers, so that they keep up with it.
    from vision.train import TrainConfig, train_detector

    monkeypatch.setattr("os.cpu_count", lambda: 16)
    train_detector(TrainConfig(out=tmp_path, data=tmp_path, device=device), tmp_path / "data.yaml", tmp_path)
    assert trainer_calls["device"] == device
    assert trainer_calls["workers"] == (2 if cpu_workers else 8)


@pytest.mark.parametrize(
    ("init", "lr0", "expected"),
    [(None, None, 0.01), ("models/card-index.pt", None, FINE_TUNE_LR), ("models/card-index.pt", 6e-4, 6e-4)],
)
def test_the_detector_learns_at_the_rate_asked_for(
    tmp_path: Path, trainer_calls: dict[str, object], init: str | None, lr0: float | None, expected: float
) -> None:
    # From scratch at Ultralytics' rate, a fine-tune at a tenth of what its automatic optimizer picks, and a
    # taught deck's detector at the rate teaching asks for (vision.teach.DETECTOR_LR).
    from vision.train import TrainConfig, train_detector

    cfg = TrainConfig(out=tmp_path, data=tmp_path, init=Path(init) if init else None, lr0=lr0)
    train_detector(cfg, tmp_path / "data.yaml", tmp_path)
    assert trainer_calls["lr0"] == expected


def test_a_widened_classifier_computes_what_the_narrow_one_did(tmp_path: Path) -> None:
    # Fine-tuning a wider classifier from narrower weights starts from the same function, not from scratch.
    import torch

    from vision.train import _classifier_net, _load_widened, classifier_width

    torch.manual_seed(0)
    narrow = _classifier_net(len(CLASS_CARDS), 16)
    narrow.train()
    with torch.no_grad():  # move the batch-norm statistics away from their initial values
        narrow(torch.randn(64, 3, CROP, CROP))
    narrow.eval()
    wide = _classifier_net(len(CLASS_CARDS), 32)
    _load_widened(wide, narrow.state_dict())
    wide.eval()
    assert classifier_width(wide.state_dict()) == 32
    x = torch.randn(5, 3, CROP, CROP)
    with torch.no_grad():
        assert torch.allclose(narrow(x), wide(x), atol=1e-5)
    assert sum(p.numel() for p in wide.parameters()) > 3 * sum(p.numel() for p in narrow.parameters())


def test_a_classifier_does_not_narrow(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import torch

    from vision.train import _classifier_net

    torch.save(_classifier_net(len(CLASS_CARDS), 32).state_dict(), tmp_path / "wide.pt")
    args = ["train", "--smoke", "--stage", "classifier", "--classifier-width", "16"]
    args += ["--init-classifier", str(tmp_path / "wide.pt"), "--data", str(tmp_path / "d")]
    assert main([*args, "--out", str(tmp_path / "m")]) == 2
    assert "does not fit" in capsys.readouterr().err


def test_the_command_line_defaults_are_the_training_defaults() -> None:
    # The model card says a bare `phase10 train` is TrainConfig's defaults; the two must not drift apart.
    from dataclasses import fields

    from companion.cli import build_parser
    from vision.train import TrainConfig

    args = vars(build_parser().parse_args(["train"]))
    defaults = {f.name: f.default for f in fields(TrainConfig)}
    shared = sorted(k for k in args if k in defaults and k not in ("out", "data", "init", "init_classifier"))
    assert {"classifier_epochs", "classifier_width", "classifier_lr", "vignettes", "epochs", "imgsz"} <= set(
        shared
    )
    assert {k: args[k] for k in shared} == {k: defaults[k] for k in shared}


def test_detector_crops_are_named_after_the_index_they_box(tmp_path: Path) -> None:
    # The classifier's extra training crops are cut where the shipped detector boxes a fresh scene, in the
    # reader's own views, and named after the true index under the box: the shipped classifier, which reads
    # these scenes' cards, must mostly agree with those names (a wrong matching would name crops at random).
    from vision.crops import NONE_CLASS
    from vision.dataset import detector_crops_path, write_detector_crops
    from vision.detector import CROP_VIEWS, MODELS_DIR, Models

    path = write_detector_crops(tmp_path, 3, MODELS_DIR, seed=5, workers=1)
    assert path == detector_crops_path(tmp_path, 3, MODELS_DIR, 5)
    d = np.load(path)
    x, y = d["x"], d["y"]
    assert x.shape[1:] == (CROP, CROP, 3) and len(x) == len(y) and len(y) % len(CROP_VIEWS) == 0
    cards = y != NONE_CLASS
    assert cards.sum() >= 3 * len(CROP_VIEWS)
    read = Models(MODELS_DIR).classify_crops(x).argmax(axis=1)
    assert (read[cards] == y[cards]).mean() >= 0.9


@pytest.mark.slow
def test_two_fine_tunes_of_one_detector_average_weight_by_weight(tmp_path: Path) -> None:
    """The shipped detector is the average of two fine-tunes of one start (models/MODEL_CARD.md, "Reproduce"):
    every weight is the weighted mean of the two, and the result exports and runs."""
    import onnxruntime as ort
    import torch

    from vision.detector import MODELS_DIR
    from vision.train import average_detectors

    first = MODELS_DIR / "card-index.pt"
    moved = torch.load(first, weights_only=False, map_location="cpu")
    state = moved["model"].state_dict()
    shift = {k: v + 0.25 for k, v in state.items() if v.is_floating_point()}
    moved["model"].load_state_dict({**state, **shift})
    second = tmp_path / "second.pt"
    torch.save(moved, second)
    onnx = average_detectors(first, second, tmp_path / "mean" / "card-index.pt", weight=0.4)
    mean = torch.load(tmp_path / "mean" / "card-index.pt", weights_only=False)["model"].state_dict()
    start = torch.load(first, weights_only=False)["model"].state_dict()
    for k, v in start.items():
        if v.is_floating_point():
            assert torch.allclose(mean[k].float(), v.float() + 0.1, rtol=2e-3, atol=2e-3), k  # fp16 weights
    det = ort.InferenceSession(str(onnx), providers=["CPUExecutionProvider"])
    y = det.run(None, {det.get_inputs()[0].name: np.zeros((1, 3, 640, 640), np.float32)})[0]
    assert y.shape[:2] == (1, 5)
    with pytest.raises(ValueError, match="a share from 0 to 1"):
        average_detectors(first, second, tmp_path / "x.pt", weight=1.5)
