"""What the trigger benchmarks check once a load has drained, shared by trigger-load.sh and
trigger-vs-commit.py so that both hold a run to the same standard and time it the same way."""

from datetime import datetime


def outcome(events, scores, leaderboard):
    """Counts of the events not done and with a failed delivery, whether each leaderboard entry
    is the best non-cheat score stored, and whether all of that holds with one event per score."""
    undone = sum(not event["done"] for event in events)
    failed = sum(any(d["status"] != "succeeded" for d in event["deliveries"]) for event in events)
    best = {}
    for entry in scores.values():
        if not entry.get("cheatMode"):
            best[entry["playerName"]] = max(best.get(entry["playerName"], -1), entry["score"])
    exact = leaderboard == best
    passed = not undone and not failed and exact and len(events) == len(scores)
    return undone, failed, exact, passed


def summary(events, scores, undone, failed, exact):
    """One line saying what was found."""
    return (f"{len(events)} events, {undone} not done, {failed} failed; {len(scores)} scores; "
            f"leaderboard {'exact' if exact else 'WRONG'}")


def stages(events):
    """For each event delivered without a restart, in seconds: from the write's commit (the
    event's time) to its delivery's start (the outbox and the bus's queue), and from there to the
    end of the function (the HTTP delivery: the worker and its Admin calls)."""
    def seconds(text):
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    return [(seconds(attempt["startedAt"]) - seconds(event["time"]), attempt["durationMs"] / 1000)
            for event in events
            if event.get("time") and event.get("deliveries") and event["deliveries"][0].get("attemptLog")
            and not event.get("recoveries")
            for attempt in [event["deliveries"][0]["attemptLog"][-1]]]


def percentile_ms(values, fraction):
    """The value below which `fraction` of `values` (seconds) lie, in milliseconds; NaN when
    there are none (an event log without attempt times)."""
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * fraction))] * 1000 if values else float("nan")
