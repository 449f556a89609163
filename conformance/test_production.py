"""The sample's functions run as Cloud Run runs them (K_SERVICE, PORT, FUNCTION_TARGET, no emulator
variable) and reach Google's services with application default credentials: a service-account
key file, or the metadata server. Google is played by local stand-ins (google_standin.py) that
check every credential they are shown with google-auth, and accept only the tokens they issued."""

import json
from pathlib import Path

import pytest

from google_standin import Function, Google, remote_config_event, score_event

FIXTURES = Path(__file__).resolve().parent.parent / "Tests" / "CloudFunctionsTests" / "Fixtures"
STALE = json.loads((FIXTURES / "pushconfig-fcm-message.expected.json").read_text())


def is_stale_ping(body):
    """pushConfig's message: the STALE data to the topic, silent (content-available) on iOS."""
    message = body["message"]
    return (message["topic"] == STALE["topic"] and message["data"] == STALE["data"]
            and message["apns"]["payload"]["aps"]["content-available"] == 1 and "notification" not in message
            and body.get("validateOnly", False) is False)


@pytest.fixture
def google():
    stand_in = Google()
    yield stand_in
    stand_in.close()


@pytest.fixture
def folder(tmp_path):
    return tmp_path


def publish(count, **variables):
    """Runs pushConfig with `variables` and sends it `count` Remote Config events, each answered 200."""
    function = Function("pushConfig", **variables)
    try:
        for index in range(count):
            assert function.post(*remote_config_event(f"publish-{index}"))[0] == 200
    finally:
        assert function.stop() == 0


def failures(function, count=1):
    """The ERROR lines of failed events, once there are `count`."""
    failed = lambda entries: [e for e in entries if e.get("severity") == "ERROR" and e.get("message") == "function failed"]
    return failed(function.logs(lambda entries: len(failed(entries)) >= count))


def test_a_key_file_sends_twenty_pings_with_one_token(google, folder):
    publish(20, GOOGLE_APPLICATION_CREDENTIALS=google.key_file(folder), FIREBASE_MESSAGING_URL_BASE=google.base)
    assert google.refusals == []
    assert google.token_requests == 1
    assert [project for project, _ in google.messages] == ["key-project"] * 20
    assert all(is_stale_ping(body) for _, body in google.messages)


def test_on_cloud_run_the_metadata_server_gives_the_project_and_tokens(google):
    google.metadata_project = "run-project"
    publish(3, GCE_METADATA_HOST=google.host, FIREBASE_MESSAGING_URL_BASE=google.base)
    assert google.refusals == []
    assert (google.metadata_token_requests, google.token_requests) == (1, 0)
    assert [project for project, _ in google.messages] == ["run-project"] * 3


def test_a_token_shorter_than_the_renewal_margin_is_renewed_before_each_call(google, folder):
    google.lifetime = 30
    publish(3, GOOGLE_APPLICATION_CREDENTIALS=google.key_file(folder), FIREBASE_MESSAGING_URL_BASE=google.base,
            GOOGLE_CLOUD_PROJECT="named-project")
    assert google.refusals == []
    assert google.token_requests == 3
    assert [project for project, _ in google.messages] == ["named-project"] * 3


def test_on_score_write_keeps_the_best_score_at_firebase_configs_database(google, folder):
    config = {"projectId": "prod-project", "databaseURL": f"{google.base}/?ns=prod-project-scores"}
    function = Function("onScoreWrite", GOOGLE_APPLICATION_CREDENTIALS=google.key_file(folder),
                        FIREBASE_CONFIG=json.dumps(config))
    try:
        for index, (score, cheat) in enumerate([(10, False), (30, False), (20, False), (999, True)]):
            assert function.post(*score_event(f"score-{index}", f"s{index}", score, cheat=cheat))[0] == 200
        # Delivered again, as at-least-once allows: the transaction never lowers the best.
        assert function.post(*score_event("score-0", "s0", 10))[0] == 200
    finally:
        function.stop()
    assert google.refusals == []
    assert google.token_requests == 1
    assert google.database == {"leaderboard": {"grace": 30}}
    # Every request named the instance; a transaction's conditional writes went with If-Match.
    assert {ns for _, _, ns in google.database_requests} == {"prod-project-scores"}
    assert {(method, path) for method, path, _ in google.database_requests} == {
        ("GET", "leaderboard/grace"), ("PUT", "leaderboard/grace")}


def test_without_credentials_events_fail_with_5xx_and_one_line_says_why(google):
    # google answers as no metadata server does: without Metadata-Flavor.
    function = Function("pushConfig", GCE_METADATA_HOST=google.host, FIREBASE_MESSAGING_URL_BASE=google.base)
    try:
        for index in range(2):
            status, _ = function.post(*remote_config_event(f"publish-{index}"))
            assert status == 500
        assert function.get("/__/health") == 200
        lines = failures(function, count=2)
        assert len(lines) == 2
        error = lines[0]["error"]
        assert "GOOGLE_APPLICATION_CREDENTIALS: not set" in error
        assert "gcloud's application default credentials (" in error and "no such file" in error
        assert f"the metadata server ({google.host}): " in error and "not a metadata server" in error
    finally:
        assert function.stop() == 0
    assert google.messages == []


def test_a_broken_key_or_a_token_endpoint_down_fails_the_event_and_shows_nothing_of_the_key(google, folder):
    pem = google.private_key_pem()
    broken = google.key_file(folder, private_key=pem[:-300])
    down = Google()
    down.close()
    (folder / "down").mkdir()
    unreachable = google.key_file(folder / "down", token_uri=down.base + "/token")
    for key_file, reason in [(broken, "private_key is not an RSA private key"), (unreachable, "no answer")]:
        function = Function("pushConfig", GOOGLE_APPLICATION_CREDENTIALS=key_file,
                            FIREBASE_MESSAGING_URL_BASE=google.base)
        try:
            assert function.post(*remote_config_event("publish-1"))[0] == 500
            assert function.get("/__/health") == 200
            error = failures(function)[0]["error"]
            assert f"GOOGLE_APPLICATION_CREDENTIALS ({key_file})" in error or "from GOOGLE_APPLICATION_CREDENTIALS" in error
            assert reason in error
        finally:
            function.stop()
        everything = "".join(function.lines) + function.process.stderr.read()
        body = "".join(pem.splitlines()[1:-1])
        assert "PRIVATE KEY" not in everything
        assert not any(body[i:i + 16] in everything for i in range(0, len(body) - 16, 16))
    assert google.messages == []
