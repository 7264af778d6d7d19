"""The card camera: render training data, train the detector, and read a phase from a photo.

Serving (``vision.reader``, ``vision.detector``, ``vision.detections``, ``vision.inference``, ``vision.layout``)
needs only numpy, OpenCV and onnxruntime (the ``vision`` extra). Rendering and training (``vision.render``, ``vision.scene``, ``vision.dataset``,
``vision.train``) need the ``train`` extra. Nothing here is imported by ``companion.rules``.
"""
