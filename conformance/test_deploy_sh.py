"""The README's main command, as a newcomer runs it: ./deploy.sh twice on the same state (the
second run redeploys and shows the demo again), then ./deploy.sh --stop. A debug build and a
data folder of the test's own keep it quick and away from the developer's .functions/."""

import os
import subprocess

from conftest import ROOT


def deploy_sh(*arguments):
    return subprocess.run([str(ROOT / "deploy.sh"), *arguments], capture_output=True, text=True, timeout=900)


def test_deploy_sh_runs_twice_and_stops(tmp_path):
    data = str(tmp_path / "state")
    common = ["--port", "0", "--debug", "--data-dir", data, "--project", "demo-deploy"]
    try:
        for run_number in (1, 2):
            run = deploy_sh(*common)
            assert run.returncode == 0, f"run {run_number}:\n{run.stdout}\n{run.stderr}"
            assert '"CONFIG_STATE":"STALE"' in run.stdout, run.stdout
            assert '/users/ada = {"createdAt":' in run.stdout, run.stdout
            assert 'a cheat of 999 → /leaderboard = {"ada":30}' in run.stdout, run.stdout
            assert "4. pushConfig's" in run.stdout, run.stdout
        assert "the emulator started earlier answers on" in run.stdout, "the second run reuses the emulator"
        pid = int(open(os.path.join(data, "emulator.pid")).read())
        os.kill(pid, 0)
        workers = [int(w) for w in subprocess.run(["pgrep", "-P", str(pid)], capture_output=True,
                                                   text=True).stdout.split()]
        assert workers, "the deployed worker runs as the emulator's child"
    finally:
        stopped = deploy_sh("--stop", "--data-dir", data)
    assert stopped.returncode == 0 and "stopped the emulator" in stopped.stdout, stopped.stdout
    try:
        os.kill(pid, 0)
        raise AssertionError("the emulator still runs after --stop")
    except ProcessLookupError:
        pass
    # Its worker went with it.
    for worker in workers:
        try:
            os.kill(worker, 0)
            raise AssertionError(f"the worker {worker} outlived the emulator")
        except ProcessLookupError:
            pass
