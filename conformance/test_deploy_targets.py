"""`functions deploy --target cloud-run|knative`: the files written from a package's manifest,
read back with a real YAML parser and a shell lexer, field by field; and the refusals.

The functions/ sample is built once (its manifest comes from its binary, as a user's would);
the other cases give hand-written manifests with --manifest, so that every option and every
trigger kind is covered without building more packages.
"""

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
BINARY = os.environ.get("FUNCTIONS_BIN", str(ROOT / ".build" / "debug" / "functions"))
BUILD = ["--scratch-path", os.environ.get("SCRATCH_PATH", str(ROOT / ".build")),
         "--configuration", os.environ.get("CONFIGURATION", "debug")]


def deploy(*arguments, cwd=ROOT):
    return subprocess.run([BINARY, "deploy", "--source", str(ROOT / "functions"), *BUILD, *arguments],
                          capture_output=True, text=True, timeout=900, cwd=cwd)


def endpoint(event_type, filters=None, patterns=None, retry=False, **options):
    trigger = {"eventType": event_type, "eventFilters": filters or {}, "retry": retry}
    if patterns:
        trigger["eventFilterPathPatterns"] = patterns
    entry = {"platform": "gcfv2", "region": [options.pop("region", "us-central1")], "eventTrigger": trigger,
             "labels": {}}
    delivery = options.pop("delivery", None)
    entry.update(options)
    if delivery:
        entry["deliveryPolicy"] = delivery
    return entry


def manifest_file(tmp_path, endpoints):
    for name, entry in endpoints.items():
        entry["entryPoint"] = name
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps({"specVersion": "v1alpha1", "requiredAPIs": [], "endpoints": endpoints}))
    return str(path)


DB = "google.firebase.database.ref.v1.written"
RC = "google.firebase.remoteconfig.remoteConfig.v1.updated"


@pytest.fixture(scope="module")
def sample_knative(tmp_path_factory):
    out = tmp_path_factory.mktemp("knative") / "out"
    result = deploy("--target", "knative", "--image", "registry.example/fns:1", "--out", str(out), "--project", "my-proj",
                    "--broker", "firebase", "--dead-letter-sink", "http://dead.example/letters")
    assert result.returncode == 0, result.stderr
    return out


def documents(path):
    return list(yaml.safe_load_all(path.read_text()))


def test_knative_sample_services_and_triggers(sample_knative):
    files = sorted(p.name for p in sample_knative.iterdir())
    assert files == ["Dockerfile", "Dockerfile.dockerignore", "checksignup.yaml", "nightlydigest.yaml",
                     "ongamescoredocument.yaml", "onscoresubmitted.yaml", "onscorewrite.yaml", "onusercreated.yaml",
                     "pushconfig.yaml", "recountleaderboard.yaml", "submitscore.yaml"]
    # Request functions are Services alone, serving HTTP.
    (callable_service,) = documents(sample_knative / "submitscore.yaml")
    env = callable_service["spec"]["template"]["spec"]["containers"][0]["env"]
    # The project, which Cloud Run sets and Knative does not: the callable checks its ID tokens.
    assert env[:3] == [{"name": "FUNCTION_TARGET", "value": "submitScore"},
                       {"name": "FUNCTION_SIGNATURE_TYPE", "value": "http"}, {"name": "GOOGLE_CLOUD_PROJECT", "value": "my-proj"}]
    # The Firebase app's configuration, for the Admin calls: the project and its default database.
    assert env[3]["name"] == "FIREBASE_CONFIG"
    assert json.loads(env[3]["value"]) == {"projectId": "my-proj",
                                           "databaseURL": "https://my-proj-default-rtdb.firebaseio.com"}
    # The param of functions/.env, as every service gets it.
    assert env[4:] == [{"name": "MAX_SCORE", "value": "1000000"}]
    (blocking_service,) = documents(sample_knative / "checksignup.yaml")
    assert blocking_service["spec"]["template"]["spec"]["timeoutSeconds"] == 7
    service, trigger = documents(sample_knative / "onscorewrite.yaml")
    assert service["apiVersion"] == "serving.knative.dev/v1"
    assert service["kind"] == "Service"
    assert service["metadata"]["name"] == "onscorewrite"
    spec = service["spec"]["template"]["spec"]
    assert spec["containerConcurrency"] == 80
    assert spec["timeoutSeconds"] == 60
    (container,) = spec["containers"]
    assert container["image"] == "registry.example/fns:1"
    assert container["ports"] == [{"containerPort": 8080}]
    assert container["env"][:3] == [{"name": "FUNCTION_TARGET", "value": "onScoreWrite"},
                                    {"name": "FUNCTION_SIGNATURE_TYPE", "value": "cloudevent"},
                                    {"name": "GOOGLE_CLOUD_PROJECT", "value": "my-proj"}]
    # No credentials wired in unless asked: on GKE without Workload Identity the node's account is used.
    assert "serviceAccountName" not in spec and "volumes" not in spec and "volumeMounts" not in container
    assert "metadata" not in service["spec"]["template"], "no scale bounds unless the function sets them"
    assert trigger["apiVersion"] == "eventing.knative.dev/v1"
    assert trigger["kind"] == "Trigger"
    assert trigger["metadata"]["name"] == "onscorewrite"
    assert trigger["spec"]["broker"] == "firebase"
    # The ref pattern and the any-instance pattern are not exact: the worker filters them.
    assert trigger["spec"]["filter"] == {"attributes": {"type": DB}}
    assert trigger["spec"]["subscriber"] == {
        "ref": {"apiVersion": "serving.knative.dev/v1", "kind": "Service", "name": "onscorewrite"}}
    assert trigger["spec"]["delivery"] == {"retry": 0, "deadLetterSink": {"uri": "http://dead.example/letters"}}
    _, config = documents(sample_knative / "pushconfig.yaml")
    assert config["spec"]["filter"]["attributes"] == {"type": RC}
    # Firestore: the database is exact, the document pattern the worker checks.
    _, firestore = documents(sample_knative / "ongamescoredocument.yaml")
    assert firestore["spec"]["filter"]["attributes"] == {
        "type": "google.cloud.firestore.document.v1.written", "database": "(default)", "namespace": "(default)"}
    # A schedule: a PingSource firing the service, in the schedule's time zone.
    digest_service, ping = documents(sample_knative / "nightlydigest.yaml")
    assert digest_service["spec"]["template"]["spec"]["containerConcurrency"] == 1
    assert ping["apiVersion"] == "sources.knative.dev/v1" and ping["kind"] == "PingSource"
    assert ping["spec"]["schedule"] == "0 3 * * *" and ping["spec"]["timezone"] == "UTC"
    assert ping["spec"]["sink"] == {"ref": {"apiVersion": "serving.knative.dev/v1", "kind": "Service",
                                            "name": "nightlydigest"}}
    # Pub/Sub: the topic is named by the event's source, which names the project.
    _, pubsub = documents(sample_knative / "onscoresubmitted.yaml")
    assert pubsub["spec"]["filter"]["attributes"] == {
        "type": "google.cloud.pubsub.topic.v1.messagePublished",
        "source": "//pubsub.googleapis.com/projects/my-proj/topics/score-submissions"}


def test_dockerfile_builds_static_and_runs_as_non_root(sample_knative):
    text = (sample_knative / "Dockerfile").read_text()
    instructions = [line.split(None, 1) for line in text.splitlines() if line and not line.startswith(("#", " "))]
    froms = [rest for word, rest in instructions if word == "FROM"]
    assert len(froms) == 2
    assert froms[0].startswith("swift:") and froms[0].endswith(" AS build")
    assert "--static-swift-stdlib" in text
    assert "--package-path functions --product AppFunctions" in text
    assert ("USER", "functions:functions") in [tuple(i) for i in instructions]
    assert ("ENTRYPOINT", '["/app/AppFunctions"]') in [tuple(i) for i in instructions]
    # The build context holds functions/ and the package it depends on by path (the repository).
    assert f"docker build -f Dockerfile -t IMAGE {ROOT}" in text
    assert "**/.build" in (sample_knative / "Dockerfile.dockerignore").read_text()


def test_knative_options_scale_memory_and_delivery(tmp_path):
    manifest = manifest_file(tmp_path, {
        "scoreWrites": endpoint(DB, {"instance": "scores-db"}, {"ref": "scores/{id}"}, retry=True,
                                concurrency=4, timeoutSeconds=30, availableMemoryMb=512, minInstances=1,
                                maxInstances=7, region="europe-west1",
                                delivery={"maxEventAgeSeconds": 3600, "maxAttempts": 6, "minBackoffSeconds": 0.2,
                                          "maxBackoffSeconds": 60}),
        "configChanged": endpoint(RC, retry=True),
    })
    out = tmp_path / "out"
    result = deploy("--target", "knative", "--image", "fns:2", "--out", str(out), "--manifest", manifest)
    assert result.returncode == 0, result.stderr
    service, trigger = documents(out / "scorewrites.yaml")
    template = service["spec"]["template"]
    assert template["metadata"]["annotations"] == {"autoscaling.knative.dev/min-scale": "1",
                                                   "autoscaling.knative.dev/max-scale": "7"}
    assert template["spec"]["containerConcurrency"] == 4
    assert template["spec"]["timeoutSeconds"] == 30
    assert template["spec"]["containers"][0]["resources"] == {"limits": {"memory": "512Mi"}}
    assert template["spec"]["containers"][0]["env"][0] == {"name": "FUNCTION_TARGET", "value": "scoreWrites"}
    assert trigger["spec"]["broker"] == "default"
    # The instance attribute names the database; its source would also name its region, which
    # the function's region need not be on Knative.
    assert trigger["spec"]["filter"]["attributes"] == {"type": DB, "instance": "scores-db"}
    assert trigger["spec"]["delivery"] == {"retry": 5, "backoffPolicy": "exponential", "backoffDelay": "PT0.2S"}
    _, config = documents(out / "configchanged.yaml")
    # Retried for the default 24 hours: as many doublings from 10 s as fit (10 s × (2^13 − 1) ≈ 22.8 h).
    assert config["spec"]["delivery"] == {"retry": 13, "backoffPolicy": "exponential", "backoffDelay": "PT10S"}
    # Knative doubles the delay without a maximum: the default backoff's 600 s is not kept, and it says so.
    assert ("'configChanged': Knative's backoff has no maximum: retry 13 waits 40960 s, past the backoff's "
            "maximum of 600 s") in result.stderr
    assert "'scoreWrites'" not in result.stderr


@pytest.mark.parametrize("target", [["cloud-run", "--project", "my-proj"], ["knative", "--image", "x:1"]])
def test_deploy_warns_of_a_backoff_the_platform_cannot_carry(tmp_path, target):
    manifest = manifest_file(tmp_path, {
        "steady": endpoint(RC, retry=True, delivery={"maxEventAgeSeconds": 86400, "minBackoffSeconds": 10,
                                                     "maxBackoffSeconds": 600, "backoffMultiplier": 3,
                                                     "backoffJitter": 0}),
        "usual": endpoint(RC, retry=True, delivery={"maxEventAgeSeconds": 86400, "minBackoffSeconds": 10,
                                                    "maxBackoffSeconds": 600, "backoffMultiplier": 2,
                                                    "backoffJitter": 0.5}),
    })
    result = deploy("--target", *target, "--out", str(tmp_path / "out"), "--manifest", manifest)
    assert result.returncode == 0, result.stderr
    assert "'steady':" in result.stderr and "multiplier (3.0) and jitter (0.0) are not carried" in result.stderr
    # The default multiplier and jitter are what both platforms do (only Knative's missing maximum is said).
    assert "'usual': Pub/Sub" not in result.stderr and "'usual': Knative doubles" not in result.stderr


def gcloud_commands(script):
    """The script's commands, each as (words, {flag: [values]}), continuation lines joined."""
    commands = []
    for line in script.replace("\\\n", " ").splitlines():
        line = line.strip()
        if not line.startswith(("gcloud ", "docker ")):
            continue
        words = shlex.split(line)
        flags = {}
        positional = []
        for word in words:
            if word.startswith("--"):
                name, _, value = word.partition("=")
                flags.setdefault(name, []).append(value)
            else:
                positional.append(word)
        commands.append((positional, flags))
    return commands


def cloud_run_script(tmp_path, manifest):
    """deploy.sh for `manifest` in project my-proj, checked by bash: its text and its gcloud commands."""
    out = tmp_path / "out"
    result = deploy("--target", "cloud-run", "--project", "my-proj", "--out", str(out), "--manifest", manifest)
    assert result.returncode == 0, result.stderr
    script = (out / "deploy.sh").read_text()
    subprocess.run(["bash", "-n", str(out / "deploy.sh")], check=True)
    return script, gcloud_commands(script)


def test_cloud_run_script(tmp_path):
    manifest = manifest_file(tmp_path, {
        "onScoreWrite": endpoint(DB, patterns={"instance": "*", "ref": "scores/{scoreId}"}, concurrency=1,
                                 timeoutSeconds=120, availableMemoryMb=256, minInstances=0, maxInstances=3,
                                 adminServices=["database"]),
        "pushConfig": endpoint(RC, retry=True,
                               delivery={"maxEventAgeSeconds": 7200, "maxAttempts": 10, "minBackoffSeconds": 5,
                                         "maxBackoffSeconds": 300}, adminServices=["messaging"]),
    })
    out = tmp_path / "out"
    result = deploy("--target", "cloud-run", "--project", "my-proj", "--out", str(out), "--manifest", manifest,
                    "--dead-letter-topic", "projects/my-proj/topics/dead", "--service-account",
                    "events@my-proj.iam.gserviceaccount.com")
    assert result.returncode == 0, result.stderr
    script = (out / "deploy.sh").read_text()
    assert os.access(out / "deploy.sh", os.X_OK)
    subprocess.run(["bash", "-n", str(out / "deploy.sh")], check=True)
    assert 'PROJECT="${PROJECT:-my-proj}"' in script
    assert 'IMAGE="${IMAGE:-us-central1-docker.pkg.dev/my-proj/functions/appfunctions:latest}"' in script
    commands = gcloud_commands(script)
    kinds = [" ".join(words[:2] if words[0] == "docker" else words[:4]) for words, _ in commands]
    assert kinds == ["gcloud artifacts repositories describe", "docker build", "docker push",
                     "gcloud iam service-accounts create",
                     "gcloud projects add-iam-policy-binding $PROJECT", "gcloud projects add-iam-policy-binding $PROJECT",
                     "gcloud projects add-iam-policy-binding $PROJECT",
                     "gcloud run deploy onscorewrite", "gcloud eventarc triggers update",
                     "gcloud eventarc triggers create",
                     "gcloud run services add-iam-policy-binding",
                     "gcloud run deploy pushconfig", "gcloud eventarc triggers update",
                     "gcloud eventarc triggers create",
                     "gcloud pubsub subscriptions update",
                     "gcloud pubsub topics add-iam-policy-binding", "gcloud pubsub subscriptions add-iam-policy-binding",
                     "gcloud run services add-iam-policy-binding"]
    (_, (build, _), _, _, (_, messaging), (_, database), (_, receiver), (_, run), (existing_words, existing), (create_words, create), (_, invoker),
     (_, run2), (_, existing2), (_, create2), (update_words, update), (_, publisher), (_, subscriber), _) = commands
    # A trigger deployed before is updated to the same settings a new one is created with.
    assert existing_words[4] == "onscorewrite" and existing == create and existing2 == create2
    # The functions run as their own account, granted the roles of the services they declare.
    assert 'RUNTIME_ACCOUNT="${RUNTIME_ACCOUNT:-functions-runtime@$PROJECT.iam.gserviceaccount.com}"' in script
    assert messaging["--member"] == database["--member"] == ["serviceAccount:$RUNTIME_ACCOUNT"]
    assert messaging["--role"] == ["roles/firebasecloudmessaging.admin"]
    assert database["--role"] == ["roles/firebasedatabase.admin"]
    assert "# pushConfig needs roles/firebasecloudmessaging.admin." in script
    assert "onScoreWrite (Realtime Database): gcloud projects add-iam-policy-binding my-proj " \
           "--member=serviceAccount:functions-runtime@my-proj.iam.gserviceaccount.com " \
           "--role=roles/firebasedatabase.admin --condition=None" in result.stderr
    # The account Eventarc delivers as may receive events and invoke each event service.
    assert 'TRIGGER_ACCOUNT="${TRIGGER_ACCOUNT:-events@my-proj.iam.gserviceaccount.com}"' in script
    assert receiver["--member"] == ["serviceAccount:$TRIGGER_ACCOUNT"]
    assert receiver["--role"] == ["roles/eventarc.eventReceiver"]
    assert invoker["--member"] == ["serviceAccount:$TRIGGER_ACCOUNT"] and invoker["--role"] == ["roles/run.invoker"]
    # Pub/Sub's agent may publish to the dead-letter topic and pull from the subscription.
    assert publisher["--role"] == ["roles/pubsub.publisher"] and subscriber["--role"] == ["roles/pubsub.subscriber"]
    assert publisher["--member"] == ["serviceAccount:$agent"]
    assert build == ["docker", "build", "-f", "Dockerfile", "-t", "$IMAGE", str(ROOT)]
    assert run == {"--project": ["$PROJECT"], "--image": ["$IMAGE"], "--region": ["us-central1"],
                   "--service-account": ["$RUNTIME_ACCOUNT"],
                   "--set-env-vars": ["^|^FUNCTION_TARGET=onScoreWrite|FUNCTION_SIGNATURE_TYPE=cloudevent|"
                                      "GOOGLE_CLOUD_PROJECT=$PROJECT|"
                                      'FIREBASE_CONFIG={"projectId":"$PROJECT","databaseURL":"$DATABASE_URL"}|'
                                      "MAX_SCORE=1000000"],
                   "--concurrency": ["1"], "--timeout": ["120s"], "--memory": ["256Mi"],
                   "--min-instances": ["0"], "--max-instances": ["3"], "--no-allow-unauthenticated": [""]}
    assert create_words[4] == "onscorewrite"
    assert create == {"--project": ["$PROJECT"], "--location": ["us-central1"],
                      "--destination-run-service": ["onscorewrite"], "--destination-run-region": ["us-central1"],
                      "--event-filters": [f"type={DB}"],
                      "--event-filters-path-pattern": ["instance=*", "ref=scores/{scoreId}"],
                      "--service-account": ["events@my-proj.iam.gserviceaccount.com"],
                      "--max-retry-attempts": ["1"]}
    assert run2["--set-env-vars"][0].startswith("^|^FUNCTION_TARGET=pushConfig|FUNCTION_SIGNATURE_TYPE=cloudevent|")
    assert "--min-instances" not in run2
    # Remote Config is a global service; retried, so no --max-retry-attempts.
    assert create2["--location"] == ["global"]
    assert create2["--event-filters"] == [f"type={RC}"]
    assert "--max-retry-attempts" not in create2
    assert update_words[4] == "$subscription"
    assert update == {"--project": ["$PROJECT"], "--min-retry-delay": ["5s"], "--max-retry-delay": ["300s"],
                      "--message-retention-duration": ["7200s"],
                      "--dead-letter-topic": ["projects/my-proj/topics/dead"], "--max-delivery-attempts": ["10"]}


def test_cloud_run_schedules_are_cloud_scheduler_jobs(tmp_path):
    """A scheduleTrigger as firebase-functions writes it becomes a Cloud Scheduler job that POSTs to
    the service with an OIDC token, with the retry config carried."""
    manifest = manifest_file(tmp_path, {
        "digest": {"platform": "gcfv2", "region": ["europe-west1"], "labels": {}, "timeoutSeconds": 600,
                   "scheduleTrigger": {"schedule": "every day 03:00", "timeZone": "Europe/Paris",
                                       "retryConfig": {"retryCount": 3, "maxRetrySeconds": None,
                                                       "minBackoffSeconds": 10, "maxBackoffSeconds": 300,
                                                       "maxDoublings": 2}}},
    })
    script, commands = cloud_run_script(tmp_path, manifest)
    jobs = [(words, flags) for words, flags in commands if words[:3] == ["gcloud", "scheduler", "jobs"]]
    assert [words[3:6] for words, _ in jobs] == [["update", "http", "firebase-schedule-digest-europe-west1"],
                                                 ["create", "http", "firebase-schedule-digest-europe-west1"]]
    (_, update), (_, create) = jobs
    assert update == create
    assert "gcloud scheduler jobs describe firebase-schedule-digest-europe-west1" in script
    assert 'url="$(gcloud run services describe digest --project="$PROJECT" --region=europe-west1 ' \
           "--format='value(status.url)')\"" in script
    assert create == {"--project": ["$PROJECT"], "--location": ["europe-west1"], "--schedule": ["every day 03:00"],
                      "--time-zone": ["Europe/Paris"], "--uri": ["$url"], "--http-method": ["POST"],
                      "--oidc-service-account-email": ["$TRIGGER_ACCOUNT"], "--attempt-deadline": ["600s"],
                      "--max-retry-attempts": ["3"], "--min-backoff": ["10s"], "--max-backoff": ["300s"],
                      "--max-doublings": ["2"], "--max-retry-duration": ["0s"]}
    assert "gcloud eventarc" not in script
    invoker = [flags for words, flags in commands if words[:4] == ["gcloud", "run", "services", "add-iam-policy-binding"]]
    assert invoker and invoker[-1]["--member"] == ["serviceAccount:$TRIGGER_ACCOUNT"]


def test_cloud_run_task_queues_are_cloud_tasks_queues(tmp_path):
    """A taskQueueTrigger as firebase-functions writes it becomes a private service and a Cloud Tasks
    queue named after the function, with its retries and rate limits and an HTTP override that sends
    every task to the service with an OIDC token; Knative says what it cannot carry."""
    queue = {"platform": "gcfv2", "region": ["europe-west1"], "labels": {}, "timeoutSeconds": 900,
             "taskQueueTrigger": {"retryConfig": {"maxAttempts": 5, "maxRetrySeconds": None, "minBackoffSeconds": 1,
                                                  "maxBackoffSeconds": 60, "maxDoublings": 16},
                                  "rateLimits": {"maxConcurrentDispatches": 10, "maxDispatchesPerSecond": 50},
                                  "invoker": ["serviceAccount:ops@my-proj.iam.gserviceaccount.com"]}}
    manifest = manifest_file(tmp_path, {"recountLeaderboard": queue})
    script, commands = cloud_run_script(tmp_path, manifest)
    (run,) = [flags for words, flags in commands if words[:3] == ["gcloud", "run", "deploy"]]
    assert "--allow-unauthenticated" not in run and run.get("--no-allow-unauthenticated") is not None, run
    queues = [(words, flags) for words, flags in commands if words[:3] == ["gcloud", "tasks", "queues"]]
    assert [words[3:5] for words, _ in queues] == [["update", "recountLeaderboard"], ["create", "recountLeaderboard"]]
    (_, update), (_, create) = queues
    assert update == create
    assert "gcloud tasks queues describe recountLeaderboard --project=\"$PROJECT\" --location=europe-west1" in script
    assert create == {"--project": ["$PROJECT"], "--location": ["europe-west1"], "--max-attempts": ["5"],
                      "--max-retry-duration": ["0s"], "--min-backoff": ["1s"], "--max-backoff": ["60s"],
                      "--max-doublings": ["16"], "--max-dispatches-per-second": ["50.0"],
                      "--max-concurrent-dispatches": ["10"],
                      "--http-uri-override": ["scheme:https,host:${url#https://},path:/"],
                      "--http-oidc-service-account-email-override": ["$TRIGGER_ACCOUNT"]}
    members = [flags["--member"][0] for words, flags in commands
               if words[:4] == ["gcloud", "run", "services", "add-iam-policy-binding"]]
    assert members == ["serviceAccount:$TRIGGER_ACCOUNT", "serviceAccount:ops@my-proj.iam.gserviceaccount.com"]
    assert "roles/eventarc.eventReceiver" not in script and "gcloud eventarc" not in script

    knative = deploy("--target", "knative", "--image", "registry.example/fns:1", "--out", str(tmp_path / "kn"),
                     "--project", "my-proj", "--manifest", manifest)
    assert knative.returncode == 0, knative.stderr
    assert "'recountLeaderboard': Knative has no task queues" in knative.stderr, knative.stderr
    (service,) = documents(tmp_path / "kn" / "recountleaderboard.yaml")
    assert service["kind"] == "Service"


@pytest.mark.parametrize("arguments,endpoints,message", [
    (["--target", "cloud-run", "--project", "my-proj"],
     {"onUserCreated": endpoint("google.firebase.auth.user.v1.created")},
     "function 'onUserCreated': Eventarc does not deliver 'google.firebase.auth.user.v1.created'"),
    (["--target", "cloud-run", "--project", "my-proj"],
     {"score_write": endpoint(DB, patterns={"ref": "scores/{id}"})},
     "function 'score_write' cannot be deployed as a service named 'score_write'"),
    (["--target", "cloud-run", "--project", "my-proj"],
     {"fooBar": endpoint(RC), "foobar": endpoint(RC)},
     "functions 'fooBar' and 'foobar' would both be the service 'foobar'"),
    (["--target", "cloud-run", "--project", "my-proj"],
     {"scores": endpoint(DB, patterns={"ref": "scores/{id}"}, region="us-east1")},
     "Realtime Database triggers run in the database's region"),
    (["--target", "cloud-run", "--project", "my-proj"],
     {"config": endpoint(RC, retry=True, delivery={"maxEventAgeSeconds": 86400, "maxAttempts": 3,
                                                   "minBackoffSeconds": 10, "maxBackoffSeconds": 600})},
     "maxAttempts needs a dead-letter topic"),
    (["--target", "cloud-run"], {"config": endpoint(RC)}, "--target cloud-run needs your Google Cloud project"),
    (["--target", "knative", "--image", "x:1"],
     {"tick": {"platform": "gcfv2", "region": ["us-central1"], "labels": {},
               "scheduleTrigger": {"schedule": "every 5 minutes", "timeZone": None}}},
     "a Knative PingSource reads unix-cron only, not 'every 5 minutes'"),
    (["--target", "knative", "--image", "x:1"],
     {"weekly": {"platform": "gcfv2", "region": ["us-central1"], "labels": {},
                 "scheduleTrigger": {"schedule": "0 9 * * 5-7", "timeZone": "UTC"}}},
     "a Knative PingSource reads Sunday as 0 (or SUN), not 7"),
    (["--target", "knative", "--image", "x:1"], {"config": endpoint(RC, concurrency=5000)},
     "concurrency must be between 1 and 1000"),
    (["--target", "knative", "--image", "x:1"],
     {"config": endpoint(RC, minInstances=4, maxInstances=2)}, "minInstances (4) cannot exceed maxInstances (2)"),
    (["--target", "knative", "--image", "x:1", "--only", "nope"], {"config": endpoint(RC)},
     "--only names 'nope', which is not a function of the package"),
    (["--target", "knative"], {"config": endpoint(RC)}, "--target knative needs --image"),
    (["--target", "knative", "--image", "x:1"],
     {"call": {"platform": "gcfv2", "region": ["us-central1"], "callableTrigger": {}, "labels": {}}},
     "--target knative: 'call' checks the ID tokens of your Firebase project: give --project"),
    (["--target", "kubernetes"], {"config": endpoint(RC)}, "--target"),
    (["--target", "knative", "--image", "x:1", "--dead-letter-sink", "nowhere"], {"config": endpoint(RC)},
     "--dead-letter-sink must be an http(s) URI"),
    (["--target", "cloud-run", "--project", "p", "--broker", "b"], {"config": endpoint(RC)},
     "--broker is for --target knative"),
    (["--target", "cloud-run", "--project", "p", "--key-secret", "google-key"], {"config": endpoint(RC)},
     "--key-secret is for --target knative"),
    (["--target", "cloud-run", "--project", "p", "--database-url", "ftp://x"], {"config": endpoint(RC)},
     "--database-url must be an http(s) URL"),
    (["--target", "cloud-run", "--project", "p", "--run-as", "functions"], {"config": endpoint(RC)},
     "--run-as must be a service account's e-mail address"),
    (["--target", "cloud-run", "--project", "p", "--database-url", "https://x.firebaseio.com/}"],
     {"config": endpoint(RC)}, "--database-url must be an http(s) URL"),
    (["--target", "knative", "--image", "x:1", "--run-as", "Functions@x"], {"config": endpoint(RC)},
     "--run-as must be a Kubernetes service account name"),
    (["--target", "knative", "--image", "x:1", "--run-as", "functions", "--key-secret", "google-key"],
     {"config": endpoint(RC)}, "--key-secret and --run-as are two ways"),
])
def test_refusals_write_nothing(tmp_path, arguments, endpoints, message):
    out = tmp_path / "out"
    result = deploy(*arguments, "--out", str(out), "--manifest", manifest_file(tmp_path, endpoints))
    assert result.returncode != 0
    assert message in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()[-1]) < 400
    assert not out.exists()


def test_dry_run_prints_and_writes_nothing(tmp_path):
    out = tmp_path / "out"
    result = deploy("--target", "knative", "--image", "x:1", "--out", str(out), "--dry-run",
                    "--manifest", manifest_file(tmp_path, {"config": endpoint(RC)}))
    assert result.returncode == 0, result.stderr
    assert f"==> {out}/config.yaml" in result.stdout
    assert "kind: Trigger" in result.stdout
    assert not out.exists()


def test_rewrites_its_own_folder_but_not_a_foreign_one(tmp_path):
    out = tmp_path / "out"
    manifest = manifest_file(tmp_path, {"config": endpoint(RC), "other": endpoint(RC)})
    assert deploy("--target", "knative", "--image", "x:1", "--out", str(out), "--manifest", manifest).returncode == 0
    assert (out / "other.yaml").exists()
    manifest = manifest_file(tmp_path, {"config": endpoint(RC)})
    assert deploy("--target", "knative", "--image", "x:2", "--out", str(out), "--manifest", manifest).returncode == 0
    assert not (out / "other.yaml").exists(), "a redeploy's folder holds only what it wrote"
    assert "image: x:2" in (out / "config.yaml").read_text()
    (out / "notes.txt").write_text("mine")
    result = deploy("--target", "knative", "--image", "x:3", "--out", str(out), "--manifest", manifest)
    assert result.returncode != 0
    assert "holds files this command did not write (notes.txt)" in result.stderr
    assert "image: x:2" in (out / "config.yaml").read_text()


def test_cloud_run_request_functions_are_http_services(tmp_path):
    def request_endpoint(trigger_key, trigger, **options):
        entry = {"platform": "gcfv2", "region": ["us-central1"], trigger_key: trigger, "labels": {}}
        entry.update(options)
        return entry
    manifest = manifest_file(tmp_path, {
        "api": request_endpoint("httpsTrigger", {"invoker": ["serviceAccount:ops@my-proj.iam.gserviceaccount.com"]}),
        "hello": request_endpoint("httpsTrigger", {}),
        "submitScore": request_endpoint("callableTrigger", {}, labels={"deployment-callable": "true"}),
        "checkSignUp": request_endpoint("blockingTrigger", {
            "eventType": "providers/cloud.auth/eventTypes/user.beforeCreate",
            "options": {"idToken": True, "accessToken": False, "refreshToken": False}}, timeoutSeconds=7),
    })
    out = tmp_path / "out"
    result = deploy("--target", "cloud-run", "--project", "my-proj", "--out", str(out), "--manifest", manifest)
    assert result.returncode == 0, result.stderr
    assert "blocking functions (checkSignUp) run only once Identity Platform is told to call them" in result.stderr
    script = (out / "deploy.sh").read_text()
    subprocess.run(["bash", "-n", str(out / "deploy.sh")], check=True)
    commands = gcloud_commands(script)
    kinds = [" ".join(words[:4]) for words, _ in commands if words[0] == "gcloud"]
    # No Eventarc trigger for any of them; the private one lets its invoker in. Functions that
    # declare no services get the roles of all seven.
    assert kinds == ["gcloud artifacts repositories describe", "gcloud iam service-accounts create"]  \
        + ["gcloud projects add-iam-policy-binding $PROJECT"] * 7 + [
                     "gcloud run deploy api", "gcloud run services add-iam-policy-binding",
                     "gcloud run deploy checksignup", "gcloud run deploy hello", "gcloud run deploy submitscore"]
    runs = {words[3]: flags for words, flags in commands if words[:3] == ["gcloud", "run", "deploy"]}
    assert "--no-allow-unauthenticated" in runs["api"]
    for name in ("hello", "submitscore", "checksignup"):
        assert "--allow-unauthenticated" in runs[name], name
        assert "FUNCTION_SIGNATURE_TYPE=http" in runs[name]["--set-env-vars"][0]
    assert runs["checksignup"]["--timeout"] == ["7s"]
    roles = [flags["--role"][0] for words, flags in commands if words[:3] == ["gcloud", "projects", "add-iam-policy-binding"]]
    assert roles == ["roles/firebasecloudmessaging.admin", "roles/cloudconfig.admin", "roles/firebasedatabase.admin",
                     "roles/firebaseauth.admin", "roles/datastore.user", "roles/pubsub.publisher",
                     "roles/cloudtasks.enqueuer"]
    binding = next(flags for words, flags in commands if words[:4] == ["gcloud", "run", "services", "add-iam-policy-binding"])
    assert binding["--member"] == ["serviceAccount:ops@my-proj.iam.gserviceaccount.com"]
    assert binding["--role"] == ["roles/run.invoker"]
    # The registration step, run with a stand-in URL, prints the exact API call.
    step = script[script.index("# Blocking functions"):]
    step = step.replace(step.splitlines()[1], 'url="https://checksignup-abc.a.run.app"')
    printed = subprocess.run(["bash", "-c", step], capture_output=True, text=True, env={"PROJECT": "my-proj"}).stdout
    assert "projects/my-proj/config?updateMask=blockingFunctions.triggers.beforeCreate,blockingFunctions.forwardInboundCredentials" in printed
    body = json.loads(printed.split("-d '", 1)[1].rsplit("'", 1)[0])
    assert body == {"blockingFunctions": {"triggers": {"beforeCreate": {"functionUri": "https://checksignup-abc.a.run.app"}},
                                          "forwardInboundCredentials": {"idToken": True}}}


def test_cloud_run_memory_over_4_gib_gets_the_cpus_it_needs(tmp_path):
    manifest = manifest_file(tmp_path, {
        "small": endpoint(RC, availableMemoryMb=4096), "large": endpoint(RC, availableMemoryMb=8192),
        "larger": endpoint(RC, availableMemoryMb=16384), "huge": endpoint(RC, availableMemoryMb=32768),
    })
    out = tmp_path / "out"
    result = deploy("--target", "cloud-run", "--project", "my-proj", "--out", str(out), "--manifest", manifest)
    assert result.returncode == 0, result.stderr
    runs = {words[3]: flags for words, flags in gcloud_commands((out / "deploy.sh").read_text())
            if words[:3] == ["gcloud", "run", "deploy"]}
    assert "--cpu" not in runs["small"]
    assert runs["large"]["--cpu"] == ["2"] and runs["larger"]["--cpu"] == ["4"] and runs["huge"]["--cpu"] == ["8"]


def test_knative_warns_of_timeouts_over_its_default_limit(tmp_path):
    manifest = manifest_file(tmp_path, {"slow": {"platform": "gcfv2", "region": ["us-central1"], "httpsTrigger": {},
                                                 "labels": {}, "timeoutSeconds": 1800}})
    result = deploy("--target", "knative", "--image", "x:1", "--out", str(tmp_path / "out"), "--manifest", manifest)
    assert result.returncode == 0, result.stderr
    assert "'slow' has a timeout of 1800 s; Knative refuses more than 600 s" in result.stderr


def test_cloud_run_filter_values_with_commas_keep_them(tmp_path):
    manifest = manifest_file(tmp_path, {"tagged": endpoint(DB, patterns={"instance": "*", "ref": "tags/a,b/{id}"})})
    out = tmp_path / "out"
    result = deploy("--target", "cloud-run", "--project", "my-proj", "--out", str(out), "--manifest", manifest)
    assert result.returncode == 0, result.stderr
    create = [flags for words, flags in gcloud_commands((out / "deploy.sh").read_text())
              if words[:4] == ["gcloud", "eventarc", "triggers", "create"]][0]
    # gcloud splits a dictionary flag at commas unless the item names another delimiter first.
    assert create["--event-filters-path-pattern"] == ["instance=*", "^|^ref=tags/a,b/{id}"]


def test_dockerfile_quotes_a_package_path_with_spaces(tmp_path):
    root = tmp_path / "my apps"
    (root / "shared lib" / "Sources" / "Shared").mkdir(parents=True)
    (root / "shared lib" / "Sources" / "Shared" / "Shared.swift").write_text("public let shared = 1\n")
    (root / "shared lib" / "Package.swift").write_text(
        '// swift-tools-version: 6.1\nimport PackageDescription\n'
        'let package = Package(name: "shared", products: [.library(name: "Shared", targets: ["Shared"])],\n'
        '    targets: [.target(name: "Shared")])\n')
    (root / "My Functions" / "Sources" / "App").mkdir(parents=True)
    (root / "My Functions" / "Sources" / "App" / "main.swift").write_text("import Shared\nprint(shared)\n")
    (root / "My Functions" / "Package.swift").write_text(
        '// swift-tools-version: 6.1\nimport PackageDescription\n'
        'let package = Package(name: "app", products: [.executable(name: "App", targets: ["App"])],\n'
        '    dependencies: [.package(path: "../shared lib")],\n'
        '    targets: [.executableTarget(name: "App", dependencies: [.product(name: "Shared", package: "shared lib")])])\n')
    manifest = manifest_file(tmp_path, {"configChanged": endpoint(RC)})
    out = tmp_path / "out"
    result = subprocess.run([BINARY, "deploy", "--source", str(root / "My Functions"), "--target", "knative",
                             "--image", "x:1", "--out", str(out), "--manifest", manifest],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    text = (out / "Dockerfile").read_text()
    assert "--package-path 'My Functions' --product App" in text
    # The build step's command is one valid shell command once the mount flag is taken off.
    lines = text.split("RUN --mount=type=cache,target=/cache/build \\\n", 1)[1].split("\n\n", 1)[0]
    subprocess.run(["bash", "-n", "-c", lines.replace("\\\n", " ")], check=True)


def test_cloud_run_redeploy_puts_back_what_changed(tmp_path):
    manifest = manifest_file(tmp_path, {"configChanged": endpoint(RC, retry=True)})
    out = tmp_path / "out"
    result = deploy("--target", "cloud-run", "--project", "my-proj", "--out", str(out), "--manifest", manifest)
    assert result.returncode == 0, result.stderr
    script = (out / "deploy.sh").read_text()
    commands = {" ".join(words[:4]): flags for words, flags in gcloud_commands(script)}
    update, create = commands["gcloud eventarc triggers update"], commands["gcloud eventarc triggers create"]
    # Without --service-account, an existing trigger goes back to the default account.
    assert update.pop("--clear-service-account") == [""] and update == create
    # A retried function's subscription gets every setting, Eventarc's defaults included.
    assert commands["gcloud pubsub subscriptions update"] == {
        "--project": ["$PROJECT"], "--min-retry-delay": ["10s"], "--max-retry-delay": ["600s"],
        "--message-retention-duration": ["86400s"], "--clear-dead-letter-policy": [""]}
    # A trigger deployed before without retries keeps a limit of 1 that no update lifts: said.
    assert "was deployed without retries, which an update cannot turn back on" in script
    subprocess.run(["bash", "-n", str(out / "deploy.sh")], check=True)


def test_cloud_run_script_run_with_stand_in_commands_configures_firebase_and_the_runtime_account(tmp_path):
    """deploy.sh run for real, with stand-ins of gcloud and docker that record their arguments:
    every service gets FIREBASE_CONFIG as JSON once the shell and gcloud's list escaping are undone,
    and runs as the runtime account, created first and granted the roles its functions declare."""
    manifest = manifest_file(tmp_path, {"pushConfig": endpoint(RC, adminServices=["messaging"]),
                                        "onScoreWrite": endpoint(DB, patterns={"ref": "scores/{id}"},
                                                                 adminServices=["database"])})
    out = tmp_path / "out"
    result = deploy("--target", "cloud-run", "--project", "my-proj", "--out", str(out), "--manifest", manifest,
                    "--database-url", "https://scores-eu.europe-west1.firebasedatabase.app")
    assert result.returncode == 0, result.stderr
    stubs = tmp_path / "bin"
    stubs.mkdir()
    log = tmp_path / "commands.jsonl"
    for name in ("gcloud", "docker"):
        stub = stubs / name
        # `describe` finds nothing (so the account and triggers are created), but the project number.
        stub.write_text("#!/usr/bin/env python3\n"
                        "import json, os, sys\n"
                        "open(os.environ['STUB_LOG'], 'a').write(json.dumps(sys.argv) + '\\n')\n"
                        "if sys.argv[1:3] == ['projects', 'describe']: print('123')\n"
                        "elif 'describe' in sys.argv and 'artifacts' not in sys.argv: sys.exit(1)\n")
        stub.chmod(0o755)
    environment = dict(os.environ, PATH=f"{stubs}:{os.environ['PATH']}", STUB_LOG=str(log))
    run = subprocess.run(["bash", str(out / "deploy.sh")], capture_output=True, text=True, env=environment, timeout=60)
    assert run.returncode == 0, run.stderr
    commands = [json.loads(line)[1:] for line in log.read_text().splitlines()]
    created = [c for c in commands if c[:3] == ["iam", "service-accounts", "create"]]
    assert created == [["iam", "service-accounts", "create", "functions-runtime", "--project=my-proj",
                        "--display-name=Functions runtime"]]
    bindings = [c for c in commands if c[:2] == ["projects", "add-iam-policy-binding"]
                and "--member=serviceAccount:functions-runtime@my-proj.iam.gserviceaccount.com" in c]
    assert [next(a for a in c if a.startswith("--role=")) for c in bindings] == [
        "--role=roles/firebasecloudmessaging.admin", "--role=roles/firebasedatabase.admin"]
    deploys = {c[2]: c for c in commands if c[:2] == ["run", "deploy"]}
    assert set(deploys) == {"pushconfig", "onscorewrite"}
    for name, command in deploys.items():
        assert "--service-account=functions-runtime@my-proj.iam.gserviceaccount.com" in command
        value = next(a for a in command if a.startswith("--set-env-vars="))[len("--set-env-vars="):]
        assert value.startswith("^|^")
        variables = dict(item.split("=", 1) for item in value[3:].split("|"))
        assert json.loads(variables["FIREBASE_CONFIG"]) == {
            "projectId": "my-proj", "databaseURL": "https://scores-eu.europe-west1.firebasedatabase.app"}
        assert variables["GOOGLE_CLOUD_PROJECT"] == "my-proj"


@pytest.mark.parametrize("credentials", [["--key-secret", "google-key"], ["--run-as", "functions-runtime"]])
def test_knative_credentials_from_a_secret_or_workload_identity(tmp_path, credentials):
    manifest = manifest_file(tmp_path, {"pushConfig": endpoint(RC)})
    out = tmp_path / "out"
    result = deploy("--target", "knative", "--image", "x:1", "--project", "my-proj", "--out", str(out),
                    "--manifest", manifest, "--database-url", "https://my-db.firebaseio.com", *credentials)
    assert result.returncode == 0, result.stderr
    service, _ = documents(out / "pushconfig.yaml")
    spec = service["spec"]["template"]["spec"]
    (container,) = spec["containers"]
    env = {entry["name"]: entry["value"] for entry in container["env"]}
    assert json.loads(env["FIREBASE_CONFIG"]) == {"projectId": "my-proj", "databaseURL": "https://my-db.firebaseio.com"}
    if credentials[0] == "--key-secret":
        # The key is mounted read-only from the Secret, and named where ADC looks first.
        assert env["GOOGLE_APPLICATION_CREDENTIALS"] == "/var/secrets/google/key.json"
        assert container["volumeMounts"] == [{"name": "google-credentials", "mountPath": "/var/secrets/google",
                                              "readOnly": True}]
        assert spec["volumes"] == [{"name": "google-credentials", "secret": {"secretName": "google-key"}}]
        assert "serviceAccountName" not in spec
    else:
        # Workload Identity: the pods run as the Kubernetes account; the metadata server gives its tokens.
        assert spec["serviceAccountName"] == "functions-runtime"
        assert "GOOGLE_APPLICATION_CREDENTIALS" not in env and "volumes" not in spec


def test_knative_database_url_without_a_project(tmp_path):
    """A key from a Secret names the project; the database URL still reaches the function."""
    manifest = manifest_file(tmp_path, {"pushConfig": endpoint(RC)})
    out = tmp_path / "out"
    result = deploy("--target", "knative", "--image", "x:1", "--out", str(out), "--manifest", manifest,
                    "--database-url", "https://my-db.firebaseio.com", "--key-secret", "google-key")
    assert result.returncode == 0, result.stderr
    service, _ = documents(out / "pushconfig.yaml")
    env = {entry["name"]: entry["value"] for entry in service["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert "GOOGLE_CLOUD_PROJECT" not in env
    assert json.loads(env["FIREBASE_CONFIG"]) == {"databaseURL": "https://my-db.firebaseio.com"}


def test_cloud_run_firestore_and_pubsub_triggers(tmp_path):
    manifest = manifest_file(tmp_path, {
        "onGameScore": endpoint("google.cloud.firestore.document.v1.written",
                                {"database": "(default)", "namespace": "(default)"}, {"document": "gameScores/{id}"},
                                adminServices=["firestore"]),
        "onScore": endpoint("google.cloud.pubsub.topic.v1.messagePublished", {"topic": "score-submissions"},
                            adminServices=["firestore"]),
    })
    out = tmp_path / "out"
    result = deploy("--target", "cloud-run", "--project", "my-proj", "--out", str(out), "--manifest", manifest)
    assert result.returncode == 0, result.stderr
    script = (out / "deploy.sh").read_text()
    subprocess.run(["bash", "-n", str(out / "deploy.sh")], check=True)
    creates = {words[4]: flags for words, flags in gcloud_commands(script)
               if words[:4] == ["gcloud", "eventarc", "triggers", "create"]}
    firestore, pubsub = creates["ongamescore"], creates["onscore"]
    # Firestore: the database filters, the document path pattern, and the protobuf data the trigger reads.
    assert sorted(firestore["--event-filters"]) == ["database=(default)", "namespace=(default)",
                                                    "type=google.cloud.firestore.document.v1.written"]
    assert firestore["--event-filters-path-pattern"] == ["document=gameScores/{id}"]
    assert firestore["--event-data-content-type"] == ["application/protobuf"]
    # Pub/Sub: the topic is the trigger's transport, not a filter.
    assert pubsub["--event-filters"] == ["type=google.cloud.pubsub.topic.v1.messagePublished"]
    assert pubsub["--transport-topic"] == ["projects/$PROJECT/topics/score-submissions"]
    roles = [flags["--role"][0] for words, flags in gcloud_commands(script)
             if words[:3] == ["gcloud", "projects", "add-iam-policy-binding"]]
    # The runtime account's one role, then the receiver role of the account Eventarc delivers as.
    assert roles == ["roles/datastore.user", "roles/eventarc.eventReceiver"]
