"""Task queues on the emulator, called as a backend calls Cloud Tasks: firebase-admin's
`functions.task_queue(...)`, unchanged, through CLOUD_TASKS_EMULATOR_HOST, enqueuing to the
sample's `recountLeaderboard` (at most 50 dispatches a second, 5 attempts from 1 s apart)."""

import os
from datetime import datetime

import pytest

from conftest import PROJECT

TASKS = f"/projects/{PROJECT}/locations/us-central1/queues/recountLeaderboard/tasks"


@pytest.fixture(scope="module")
def queue(emulator, app):
    from firebase_admin import functions

    env = emulator.cli("emulators:env")
    assert env.returncode == 0, env.stderr
    assert f"export CLOUD_TASKS_EMULATOR_HOST={emulator.host}" in env.stdout, env.stdout
    os.environ["CLOUD_TASKS_EMULATOR_HOST"] = emulator.host
    return functions.task_queue("recountLeaderboard")


def wait(emulator, everything=True):
    """Waits until no task is due (with `everything`, none is queued at all) and the events are delivered."""
    status, body, _ = emulator.request("GET", f"/emulator/v1/projects/{PROJECT}/events?wait={'all' if everything else 'true'}")
    assert status == 200, body


def task(emulator, task_id):
    status, body, _ = emulator.request("GET", f"{TASKS}/{task_id}")
    assert status == 200, body
    return body


def time(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def test_a_task_recounts_the_leaderboard(emulator, queue):
    from firebase_admin import db

    for score, cheat in [(10, False), (30, False), (20, False), (99, True)]:
        db.reference("/scores").push({"playerName": "tq-a", "score": score, "cheatMode": cheat})
    emulator.wait_for_deliveries()
    db.reference("/leaderboard/tq-a").set(5)
    task_id = queue.enqueue({"data": {"playerName": "tq-a"}})
    assert task_id.isdigit(), task_id
    wait(emulator)
    assert db.reference("/leaderboard/tq-a").get() == 30
    done = task(emulator, task_id)
    assert done["state"] == "succeeded" and done["dispatchCount"] == 1, done
    assert done["name"] == f"{TASKS[1:]}/{task_id}"


def test_an_id_is_taken_until_an_hour_after_its_task_ran_or_was_deleted(emulator, queue):
    from firebase_admin import exceptions, functions

    assert queue.enqueue({"data": {"playerName": "tq-b"}}, functions.TaskOptions(task_id="recount-tq-b")) == "recount-tq-b"
    with pytest.raises(exceptions.AlreadyExistsError):
        queue.enqueue({"data": {"playerName": "tq-b"}}, functions.TaskOptions(task_id="recount-tq-b"))
    wait(emulator)
    with pytest.raises(exceptions.AlreadyExistsError):
        queue.enqueue({"data": {"playerName": "tq-b"}}, functions.TaskOptions(task_id="recount-tq-b"))

    later = functions.TaskOptions(task_id="recount-later", schedule_delay_seconds=3600)
    assert queue.enqueue({"data": {"playerName": "tq-b"}}, later) == "recount-later"
    queue.delete("recount-later")
    assert task(emulator, "recount-later")["state"] == "deleted"
    with pytest.raises(exceptions.NotFoundError):
        queue.delete("recount-later")
    with pytest.raises(exceptions.AlreadyExistsError):
        queue.enqueue({"data": {"playerName": "tq-b"}}, later)


def test_a_delayed_task_does_not_run_early(emulator, queue):
    from firebase_admin import functions

    task_id = queue.enqueue({"data": {"playerName": "tq-c"}}, functions.TaskOptions(schedule_delay_seconds=2))
    wait(emulator, everything=False)
    waiting = task(emulator, task_id)
    assert waiting["state"] == "queued" and waiting["dispatchCount"] == 0, waiting
    wait(emulator)
    done = task(emulator, task_id)
    assert done["state"] == "succeeded", done
    assert time(done["firstAttempt"]["dispatchTime"]) >= time(done["scheduleTime"])
    assert time(done["scheduleTime"]) - time(done["createTime"]) >= 1.9


def test_a_failing_task_is_retried_after_its_backoff(emulator, queue):
    # '.' cannot be in a database key: the handler refuses the task (400), and the queue retries it.
    task_id = queue.enqueue({"data": {"playerName": "bad.name"}})
    wait(emulator, everything=False)
    failed = task(emulator, task_id)
    assert failed["state"] == "queued" and failed["dispatchCount"] == 1, failed
    assert failed["lastAttempt"]["responseStatus"]["code"] == 400
    assert "cannot be a database key" in failed["lastAttempt"]["error"]
    delay = time(failed["scheduleTime"]) - time(failed["lastAttempt"]["dispatchTime"])
    assert 0.9 <= delay <= 1.5, delay
    status, body, _ = emulator.request("DELETE", f"{TASKS}/{task_id}")
    assert status == 200 and body == {}


def test_the_queue_dispatches_no_faster_than_its_rate_limit(emulator, queue):
    ids = [queue.enqueue({"data": {"playerName": "tq-rate"}}) for _ in range(60)]
    wait(emulator)
    times = sorted(time(task(emulator, task_id)["firstAttempt"]["dispatchTime"]) for task_id in ids)
    # 50 a second: one every 20 ms (one more in a second for the timestamps' millisecond rounding).
    # The dispatches keep their slots, so a first dispatch woken late on a loaded machine sits
    # closer to the second: the span may be short by up to one interval, never the windows.
    assert times[-1] - times[0] >= 58 / 50 - 0.01, times[-1] - times[0]
    assert max(sum(1 for t in times if start <= t < start + 1) for start in times) <= 51


def test_enqueue_refuses_unknown_queues_and_clients_cannot_call_the_function(emulator, queue):
    from firebase_admin import exceptions, functions

    with pytest.raises(exceptions.NotFoundError):
        functions.task_queue("onScoreWrite").enqueue({"data": {}})
    status, body, _ = emulator.request("POST", f"/{PROJECT}/us-central1/recountLeaderboard", {"data": {"playerName": "x"}})
    assert status == 404 and "task-queue function" in body["error"]["message"], body
    status, body, _ = emulator.request("POST", TASKS, {"task": {"httpRequest": {"body": "%%%"}}})
    assert status == 400 and body["error"]["status"] == "INVALID_ARGUMENT", body
