"""A loopback server of media files for platform emulators to fetch. Being an emulator
server, it logs its calls and takes the same controls (`fail` for a 404 or 500, `delay`
for a slow download, `drop` for a cut connection)."""
from __future__ import annotations

import mimetypes
from pathlib import Path

from ..base import EmulatorServer, Request, Response


class MediaServer(EmulatorServer):
    name = "media"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._files: dict[str, tuple[bytes, str]] = {}
        self.route("GET", r"/.+", self._get)
        self.route("HEAD", r"/.+", self._get)  # answered without its body

    def put(self, path: str, data: bytes, content_type: str = "application/octet-stream") -> str:
        """Serve `data` at `path` (from now on); answers the file's URL."""
        path = "/" + path.lstrip("/")
        with self.lock:
            self._files[path] = (data, content_type)
        return self.url(path)

    def url(self, path: str) -> str:
        return self.base_url + "/" + path.lstrip("/")

    @property
    def paths(self) -> list[str]:
        with self.lock:
            return sorted(self._files)

    def put_folder(self, folder: Path) -> None:
        """Serve each file of `folder` (not its subfolders) at /<its name>, typed by its extension."""
        for path in sorted(folder.iterdir()):
            if path.is_file():
                self.put(f"/{path.name}", path.read_bytes(),
                         mimetypes.guess_type(path.name)[0] or "application/octet-stream")

    def _get(self, request: Request) -> Response:
        with self.lock:
            found = self._files.get(request.path)
        if found is None:
            return Response(404, b"not found", {"Content-Type": "text/plain"})
        data, content_type = found
        return Response(200, data, {"Content-Type": content_type})


def sample_media_server(**kwargs) -> MediaServer:
    """A media server holding /photo.jpg, /photo.png (640x480), /square.jpg (1080x1080) and
    /clip.mp4 (3 s); start it. `kwargs` are the server's (`host`, `port`)."""
    from . import jpeg_bytes, mp4_bytes, png_bytes

    server = MediaServer(**kwargs)
    server.put("/photo.jpg", jpeg_bytes(640, 480), "image/jpeg")
    server.put("/photo.png", png_bytes(640, 480), "image/png")
    server.put("/square.jpg", jpeg_bytes(1080, 1080), "image/jpeg")
    server.put("/clip.mp4", mp4_bytes(3.0), "video/mp4")
    return server
