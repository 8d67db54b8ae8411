"""PlatformHttp (fanout/platforms/http.py): the platforms' real URLs, listed hosts rewritten,
and failures that tell whether the request may have reached the platform."""
import socket
import threading

import pytest

from fanout.platforms.http import PlatformHttp, PlatformUnreachable

from ..conftest import free_port


def test_a_listed_host_is_rewritten_keeping_path_and_query():
    http = PlatformHttp({"graph.threads.net": "http://127.0.0.1:9200"})
    assert http.url("https://graph.threads.net/v1.0/me?fields=id") == "http://127.0.0.1:9200/v1.0/me?fields=id"


def test_an_unlisted_host_is_called_as_it_is():
    http = PlatformHttp({"graph.threads.net": "http://127.0.0.1:9200"})
    assert http.url("https://threads.net/oauth/authorize?x=1") == "https://threads.net/oauth/authorize?x=1"


def test_only_a_listed_host_may_be_plain_http():
    with pytest.raises(ValueError, match="https"):
        PlatformHttp({}).url("http://graph.threads.net/v1.0/me")


def test_a_refused_connection_was_not_sent():
    with pytest.raises(PlatformUnreachable) as failure:
        PlatformHttp({"graph.threads.net": f"http://127.0.0.1:{free_port()}"}).get("https://graph.threads.net/v1.0/me")
    assert failure.value.sent is False


def test_a_connection_closed_after_the_request_was_sent_may_have_been_acted_upon():
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        http = PlatformHttp({"graph.threads.net": f"http://127.0.0.1:{port}"}, timeout=(2.0, 2.0))

        def hang_up():
            conn, _ = listener.accept()
            conn.recv(65536)  # the request arrived...
            conn.close()  # ...and no answer ever comes

        threading.Thread(target=hang_up, daemon=True).start()
        with pytest.raises(PlatformUnreachable) as failure:
            http.post("https://graph.threads.net/v1.0/1/threads_publish", data={"creation_id": "1"})
    assert failure.value.sent is True
