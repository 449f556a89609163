"""Scheduled functions on the emulator: the sample's `nightlyDigest` (every day at 03:00 UTC), run
now with `functions schedule:run`, writes the digest of the scores stored: how many, and the
three best players."""

from conftest import PROJECT


def test_schedule_run_writes_the_digest(emulator, app):
    from firebase_admin import db

    for player, score in [("digest-a", 50), ("digest-b", 70), ("digest-c", 60), ("digest-d", 10)]:
        db.reference("/scores").push({"playerName": player, "score": score, "cheatMode": False})
    emulator.wait_for_deliveries()
    ran = emulator.cli("schedule:run", "nightlyDigest")
    assert ran.returncode == 0, ran.stderr
    assert "nightlyDigest (0 3 * * *) succeeded for the firing at " in ran.stdout, ran.stdout
    day = ran.stdout.rsplit("for the firing at ", 1)[1].strip()[:10]
    scores = db.reference("/scores").get()
    leaderboard = db.reference("/leaderboard").get()
    top = sorted(leaderboard.items(), key=lambda item: (-item[1], item[0]))[:3]
    assert db.reference(f"/digests/{day}").get() == {
        "scores": len(scores), "top": [{"playerName": player, "best": best} for player, best in top]}


def test_schedule_run_refuses_what_is_not_scheduled(emulator):
    ran = emulator.cli("schedule:run", "onScoreWrite")
    assert ran.returncode != 0 and "'onScoreWrite' is not a scheduled function" in ran.stderr, ran.stderr
    ran = emulator.cli("schedule:run", "nope")
    assert ran.returncode != 0 and "no deployed function named 'nope'" in ran.stderr, ran.stderr


def test_the_functions_listing_shows_the_schedule(emulator):
    status, body, _ = emulator.request("GET", f"/emulator/v1/projects/{PROJECT}/functions")
    assert status == 200
    schedule = body["endpoints"]["nightlyDigest"]["scheduleTrigger"]
    assert schedule["schedule"] == "0 3 * * *" and schedule["timeZone"] == "UTC"
    assert schedule["retryConfig"]["retryCount"] == 0
