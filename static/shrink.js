// Shrinking a phone photo before it is sent, shared by the pages that send photos (the referee, the deck
// walkthrough, the round form's hand count): a few hundred kilobytes cross a busy Wi-Fi where several megabytes
// stall, and the camera reads as well from the shrunk photo as long as it keeps the long side the server asks for.
(function () {
  "use strict";
  // The photo as it will be sent: turned upright by its EXIF orientation and shrunk to longSide, or the file
  // itself when it is small already or the browser cannot do it. Width and height are the sent image's pixels
  // (0 when unknown: the server's answer gives them). fallbackName names a file that has no name of its own.
  function shrink(file, longSide, quality, fallbackName) {
    const original = {blob: file, name: file.name || fallbackName || "photo.jpg", width: 0, height: 0};
    if (typeof createImageBitmap !== "function") return Promise.resolve(original);
    return createImageBitmap(file, {imageOrientation: "from-image"}).then((bitmap) => {
      const w = bitmap.width, h = bitmap.height;
      const scale = longSide / Math.max(w, h);
      if (!(scale < 1)) { bitmap.close(); return Object.assign(original, {width: w, height: h}); }
      const canvas = document.createElement("canvas");
      canvas.width = Math.round(w * scale);
      canvas.height = Math.round(h * scale);
      const ctx = canvas.getContext("2d");
      ctx.imageSmoothingQuality = "high";
      ctx.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
      bitmap.close();
      return new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", quality)).then((blob) => {
        if (!blob || blob.size >= file.size) return Object.assign(original, {width: w, height: h});
        return {blob: blob, name: original.name.replace(/\.[^.]*$/, "") + ".jpg", width: canvas.width, height: canvas.height};
      });
    }).catch(() => original);
  }
  window.phase10Photo = {shrink: shrink};
})();
