"""The sample functions in functions/, deployed to the emulator, observed through firebase-admin."""

import os
import uuid

import pytest
from firebase_admin import auth, db

from conftest import PROJECT

pytestmark = pytest.mark.skipif(os.environ.get("CONFORMANCE_DEPLOY", "1") == "0", reason="functions not deployed")


def test_creating_a_user_writes_its_profile(app, emulator):
    uid = f"fn-{uuid.uuid4().hex[:10]}"
    auth.create_user(uid=uid, email=f"{uid}@example.com", display_name="Grace")
    emulator.wait_for_deliveries()
    profile = db.reference(f"/users/{uid}").get()
    assert profile["email"] == f"{uid}@example.com"
    assert profile["displayName"] == "Grace"
    assert profile["createdAt"].endswith("Z")


def test_scores_keep_each_players_best(app, emulator):
    player = f"p{uuid.uuid4().hex[:8]}"
    scores = db.reference("/scores")
    for points in (10, 30, 20):
        scores.push({"player": player, "points": points})
        emulator.wait_for_deliveries()
    assert db.reference(f"/leaderboard/{player}").get() == 30


def test_publishing_a_template_pings_push_rc_devices(app, emulator):
    status, device, _ = emulator.request("POST", f"/emulator/v1/projects/{PROJECT}/devices", {"platform": "ios"})
    token = device["token"]
    status, _, _ = emulator.request("POST", "/iid/v1:batchAdd",
                                    {"to": "/topics/PUSH_RC", "registration_tokens": [token]})
    assert status == 200
    status, _, headers = emulator.request("GET", f"/v1/projects/{PROJECT}/remoteConfig")
    etag = {k.lower(): v for k, v in headers.items()}["etag"]
    status, body, _ = emulator.request(
        "PUT", f"/v1/projects/{PROJECT}/remoteConfig",
        {"parameters": {"welcome": {"defaultValue": {"value": "hi"}}}}, headers={"If-Match": etag},
    )
    assert status == 200, body
    emulator.wait_for_deliveries()
    status, inbox, _ = emulator.request("GET", f"/emulator/v1/projects/{PROJECT}/devices/{token}/messages")
    assert [m["data"] for m in inbox["messages"]] == [{"CONFIG_STATE": "STALE"}]
    assert inbox["messages"][0]["apns"]["payload"]["aps"]["content-available"] == 1
