"""Reading an uploaded photo from a request: a hard size limit before anything is buffered, then the bytes.

The bytes stay untrusted until ``vision`` has checked the format and the pixel count from the headers.
"""

from __future__ import annotations

from flask import current_app, request
from werkzeug.exceptions import RequestEntityTooLarge

from companion.inputs import BadInput, Refused
from companion.rules.wording import reason

# Room for the other fields of the form (phase, rules, confirmed cards) next to the photo itself.
FORM_ALLOWANCE = 256 * 1024


def photo_limit() -> int:
    return int(current_app.config["PHOTO_MAX_BYTES"])


class CameraMissing(Refused):
    """The camera is not installed on this server, or its model is missing: 503, nothing the request can fix."""

    status = 503

    def __init__(self, message: str) -> None:
        super().__init__(message, field="photo")


def too_large() -> BadInput:
    return BadInput(
        reason("photo_too_large", megabytes=photo_limit() / (1024 * 1024)), status=413, field="photo"
    )


def limit_request() -> None:
    """Refuse an oversized body before Werkzeug buffers it; call before touching ``request.files``."""
    limit = photo_limit() + FORM_ALLOWANCE
    request.max_content_length = limit
    if request.content_length is not None and request.content_length > limit:
        raise too_large()


def form_field(name: str) -> str | None:
    try:
        return request.form.get(name)
    except RequestEntityTooLarge:
        raise too_large() from None


def photo_bytes(required: bool = True) -> tuple[bytes, str] | None:
    """The uploaded ``photo`` and its file name; :class:`~companion.inputs.BadInput` (413 or 400) when it cannot be used."""
    limit_request()
    try:
        upload = request.files.get("photo")
    except RequestEntityTooLarge:
        raise too_large() from None
    if upload is None:
        if required:
            raise BadInput(reason("no_photo"), field="photo")
        return None
    data = upload.stream.read(photo_limit() + 1)
    if len(data) > photo_limit():
        raise too_large()
    if not data:
        raise BadInput(reason("photo_empty"), field="photo")
    return data, upload.filename or "photo"
