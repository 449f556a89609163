"""What the trigger benchmarks check once a load has drained, shared by trigger-load.sh and
trigger-vs-commit.py so that both hold a run to the same standard."""


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
