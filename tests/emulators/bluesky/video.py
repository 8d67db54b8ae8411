"""Bluesky's video service (video.bsky.app) as the emulator plays it: `uploadVideo` with a
service token the PDS made, the job processed on the emulator clock (`getJobStatus`),
the blob stored on the account's PDS once done, and the daily limits (`getUploadLimits`)
(tests/emulators/README.md#bluesky)."""
from __future__ import annotations

import datetime as dt
import hashlib
import secrets
import struct

from ..media import sniff
from ..wire import Request, Response
from .state import VideoJob, XrpcError, invalid_request

VIDEO_SERVICE = "did:web:video.bsky.app"
UPLOAD_BLOB, GET_LIMITS = "com.atproto.repo.uploadBlob", "app.bsky.video.getUploadLimits"
CREATED, ENCODING, COMPLETED, FAILED = "JOB_STATE_CREATED", "JOB_STATE_ENCODING", "JOB_STATE_COMPLETED", \
    "JOB_STATE_FAILED"
DAY = dt.timedelta(days=1)


def mp4_duration(data: bytes) -> float | None:
    """An MP4's or MOV's duration from its `moov`/`mvhd` box, or None."""
    def boxes(blob: bytes):
        at = 0
        while at + 8 <= len(blob):
            size, kind = struct.unpack(">I4s", blob[at:at + 8])
            if size < 8:
                return
            yield kind, blob[at + 8:at + size]
            at += size
    for kind, body in boxes(data):
        if kind == b"moov":
            for inner, content in boxes(body):
                if inner == b"mvhd" and len(content) >= 20:
                    if content[0] == 1 and len(content) >= 32:
                        scale, duration = struct.unpack(">IQ", content[20:32])
                    else:
                        scale, duration = struct.unpack(">II", content[12:20])
                    return duration / scale if scale else None
    return None


class Video:
    """Handlers and controls of the video service, on an emulator holding `lock`, `clock`,
    `_accounts`, `_jobs`, `_video_hits`, `processing_seconds`, `video_max_bytes`,
    `video_max_seconds`, `daily_videos`, `daily_video_bytes`, `flat_upload_answer`."""

    def _limits_of(self, did: str) -> tuple[int, int]:
        """(videos, bytes) the account may still upload today (the lock held)."""
        now = self.clock.now()
        hits = self._video_hits.setdefault(did, [])
        hits[:] = [(t, n) for t, n in hits if now - t < DAY]
        return self.daily_videos - len(hits), self.daily_video_bytes - sum(n for _, n in hits)

    def _get_upload_limits(self, request: Request) -> Response:
        with self.lock:
            claims = self._service_claims(request, VIDEO_SERVICE, GET_LIMITS)
            account = self._accounts.get(claims["iss"])
            if account is None:
                raise XrpcError(401, "AuthenticationRequired", "Unknown account")
            videos, size = self._limits_of(account.did)
        answer = {"canUpload": videos > 0 and size > 0 and account.email_confirmed,
                  "remainingDailyVideos": max(0, videos), "remainingDailyBytes": max(0, size)}
        if not account.email_confirmed:
            answer.update(error="EmailNotConfirmed", message="You must confirm your email to upload videos")
        elif not answer["canUpload"]:
            answer.update(error="DailyLimitExceeded", message="You have reached your daily upload limit")
        return Response.json(200, answer)

    def _upload_video(self, request: Request) -> Response:
        did = request.query.get("did")
        if not did:
            raise invalid_request('Error: Params must have the property "did"')
        data = request.raw_body
        with self.lock:
            account = self._accounts.get(did)
            if account is None:
                raise invalid_request(f"Could not find account: {did}")
            claims = self._service_claims(request, f"did:web:{self.pds_of(account)}", UPLOAD_BLOB)
            if claims["iss"] != did:
                raise XrpcError(401, "AuthenticationRequired", "Service token was not issued by this did")
            if not account.email_confirmed:
                raise XrpcError(400, "EmailNotConfirmed", "You must confirm your email to upload videos")
            if len(data) > self.video_max_bytes:
                raise XrpcError(413, "PayloadTooLarge", "request entity too large")
            sha = hashlib.sha256(data).hexdigest()
            done = next((j for j in self._jobs.values() if j.did == did and j.sha256 == sha), None)
            if done is not None:
                status = self._status(done)
                if status["state"] == COMPLETED:
                    return Response.json(409, {**status, "error": "already_exists",
                                               "message": "Video already processed"})
                if status["state"] != FAILED:
                    return Response.json(200, self._upload_answer(status))
            videos, size = self._limits_of(did)
            if videos <= 0 or size < len(data):
                raise XrpcError(429, "RateLimitExceeded", "You have reached your daily upload limit")
            now = self.clock.now()
            self._video_hits[did].append((now, len(data)))
            job = VideoJob(f"emu{secrets.token_hex(8)}", did, sha, len(data), now,
                           now + dt.timedelta(seconds=self.processing_seconds))
            kind = sniff(data[:64])
            duration = mp4_duration(data) if kind in ("mp4", "mov") else None
            if self._forced_failures:
                job.failure = self._forced_failures.pop(0)
            elif kind != "mp4":
                job.failure = ("validation_failure", "Video is not a valid MP4 file")
            elif duration is not None and duration > self.video_max_seconds:
                job.failure = ("validation_failure", f"Video is too long: it may be {self.video_max_seconds:g} "
                                                     f"seconds at most")
            else:
                job.blob = self.store_blob(did, data, "video/mp4", at=job.ready_at)
            self._jobs[job.job_id] = job
            return Response.json(200, self._upload_answer(self._status(job)))

    def _upload_answer(self, status: dict) -> dict:
        return status if self.flat_upload_answer else {"jobStatus": status}

    def _get_job_status(self, request: Request) -> Response:
        job_id = request.query.get("jobId")
        if not job_id:
            raise invalid_request('Error: Params must have the property "jobId"')
        with self.lock:
            job = self._jobs.get(job_id)
            if job is None:
                raise XrpcError(404, "NotFound", "Job not found")
            return Response.json(200, {"jobStatus": self._status(job)})

    def _status(self, job: VideoJob) -> dict:
        """The job as the service tells it at the emulator's now (the lock held)."""
        now = self.clock.now()
        status = {"jobId": job.job_id, "did": job.did}
        if now < job.ready_at:
            total = (job.ready_at - job.created_at).total_seconds()
            progress = int(100 * (now - job.created_at).total_seconds() / total) if total else 0
            return {**status, "state": CREATED if progress == 0 else ENCODING, "progress": progress}
        if job.failure is not None:
            code, message = job.failure
            return {**status, "state": FAILED, "error": code, "message": message}
        return {**status, "state": COMPLETED, "progress": 100, "blob": job.blob.ref()}

    # --- controls ---------------------------------------------------------------------------------

    def fail_next_video(self, failure_code: str = "encoding_failure", message: str = "Video could not be encoded"
                        ) -> None:
        """The next uploaded video's job ends JOB_STATE_FAILED with this failureCode."""
        with self.lock:
            self._forced_failures.append((failure_code, message))
