"""How often rendered scenes show a hand held in a fan: the ``hands`` of ``vision.scene.make_scene``, of the data
set writers and of ``phase10 train --hands``. Light on purpose (no numpy), so the command line can name it."""

from __future__ import annotations

from typing import Final

# A chance from 0 to 1 that a scene shows a hand held in a fan, placed wherever it fits; or ORIGINAL_DRAW.
HandRate = float | None
# No rate asked for: scenes are drawn as the shipped models' data was drawn (a hand on a few scenes, placed only
# where it fits at the first try), so a data set rendered again holds the same pictures.
ORIGINAL_DRAW: Final = None
