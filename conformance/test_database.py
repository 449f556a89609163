"""firebase_admin.db against the emulator's Realtime Database REST and streaming API."""

import queue
import threading

import pytest
from firebase_admin import db, exceptions


@pytest.fixture
def root(app, request):
    ref = db.reference(f"/conformance/{request.node.name}")
    ref.delete()
    return ref


def test_set_get_update_delete(root):
    root.child("user").set({"name": "Ada", "age": 36, "tags": {"a": True}})
    assert root.child("user").get() == {"name": "Ada", "age": 36, "tags": {"a": True}}
    root.child("user").update({"name": "Ada L.", "tags/b": True, "address/city": "London"})
    assert root.child("user").get() == {
        "name": "Ada L.", "age": 36, "tags": {"a": True, "b": True}, "address": {"city": "London"},
    }
    assert root.child("user/age").get() == 36
    root.child("user/tags").delete()
    assert root.child("user/tags").get() is None
    assert root.child("missing").get() is None


def test_push(root):
    first = root.child("messages").push({"text": "hello"})
    second = root.child("messages").push()
    assert first.key < second.key and len(first.key) == 20
    assert root.child("messages").get() == {first.key: {"text": "hello"}, second.key: ""}


def test_etags(root):
    ref = root.child("counter")
    ref.set(1)
    value, etag = ref.get(etag=True)
    assert value == 1
    changed, same_value, same_etag = ref.get_if_changed(etag)
    assert not changed
    success, current, new_etag = ref.set_if_unchanged(etag, 2)
    assert success and current == 2 and new_etag != etag
    stale, current, newest = ref.set_if_unchanged(etag, 3)
    assert not stale and current == 2 and newest == new_etag
    changed, value, _ = ref.get_if_changed(etag)
    assert changed and value == 2


def test_queries(root):
    users = root.child("users")
    users.set({
        "u1": {"age": 17, "name": "a"}, "u2": {"age": 18, "name": "b"},
        "u3": {"age": 30, "name": "c"}, "u4": {"age": 31, "name": "d"},
    })
    adults = users.order_by_child("age").start_at(18).end_at(30).limit_to_first(2).get()
    assert list(adults.keys()) == ["u2", "u3"]
    assert list(users.order_by_key().equal_to("u1").get().keys()) == ["u1"]
    assert list(users.order_by_child("age").limit_to_last(1).get().keys()) == ["u4"]
    scores = root.child("scores")
    scores.set({"x": 5, "y": 1, "z": 9, "w": 7})
    assert list(scores.order_by_value().limit_to_last(3).get().keys()) == ["x", "w", "z"]
    assert users.get(shallow=True) == {"u1": True, "u2": True, "u3": True, "u4": True}


def test_transaction_with_concurrent_increments(root):
    ref = root.child("likes")
    ref.set(0)
    threads = [threading.Thread(target=lambda: [ref.transaction(lambda v: (v or 0) + 1) for _ in range(5)])
               for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert ref.get() == 20


def test_transaction_aborts_on_error(root):
    ref = root.child("balance")
    ref.set(10)

    def spend(value):
        if value < 50:
            raise ValueError("insufficient")
        return value - 50

    with pytest.raises(ValueError):
        ref.transaction(spend)
    assert ref.get() == 10


def test_listen(root):
    events = queue.Queue()
    ref = root.child("live")
    ref.set({"a": 1})
    registration = ref.listen(events.put)
    try:
        first = events.get(timeout=30)
        assert (first.event_type, first.path, first.data) == ("put", "/", {"a": 1})
        ref.child("b").set(2)
        second = events.get(timeout=30)
        assert (second.event_type, second.path, second.data) == ("put", "/b", 2)
        ref.update({"c": 3, "a": None})
        third = events.get(timeout=30)
        assert third.event_type == "patch" and third.path == "/" and third.data == {"c": 3, "a": None}
    finally:
        # close() joins the listener's thread, which sees the stream closed only when it reads
        # again: writes under the path wake it, rather than the next keep-alive 30 s later.
        closer = threading.Thread(target=registration.close)
        closer.start()
        wakes = 0
        while closer.is_alive():
            assert wakes < 150, "the listener's thread never ended"
            wakes += 1
            ref.child("wake").set(wakes)
            closer.join(timeout=0.2)


def test_invalid_keys_are_refused(root):
    with pytest.raises(ValueError):
        root.child("bad.key")
    with pytest.raises(exceptions.InvalidArgumentError):
        root.update({"ok": 1, "bad]key": 2})
    assert root.get() is None


def test_requests_for_other_host_names_are_refused(emulator, root):
    """A page that points its own domain at 127.0.0.1 (DNS rebinding) cannot read the loopback
    emulator: a request naming another host is refused, one naming a loopback name answered."""
    import http.client
    import json
    from conftest import PROJECT
    root.set({"secret": 1})
    host, port = emulator.host.rsplit(":", 1)
    path = f"{root.path.rstrip('/')}.json?ns={PROJECT}-default-rtdb"
    for name, expected in [("attacker.example", 403), (f"attacker.example:{port}", 403), ("localhost", 200),
                           (f"127.0.0.1:{port}", 200), (f"[::1]:{port}", 200), ("app.localhost", 200)]:
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        connection.putrequest("GET", path, skip_host=True)
        connection.putheader("Host", name)
        connection.endheaders()
        response = connection.getresponse()
        body = json.loads(response.read())
        connection.close()
        assert response.status == expected, (name, body)
        if expected == 403:
            assert "localhost" in body["error"] and "secret" not in json.dumps(body)
        else:
            assert body == {"secret": 1}
