import CloudFunctions
import Foundation

/// Writes what deploys a functions package to Cloud Run with Eventarc, the way Firebase runs
/// 2nd-gen functions: a reviewable script with, per function, one `gcloud run deploy` of the
/// package's image with `FUNCTION_TARGET` set, and one `gcloud eventarc triggers create` whose
/// filters come from the trigger.
///
/// A scheduled function gets a Cloud Scheduler job instead of a trigger.
///
/// Retries: a function without `.retry(true)` gets `--max-retry-attempts=1`; one with it keeps
/// Eventarc's retries through Pub/Sub (exponential backoff from 10 s to 600 s for 24 hours),
/// and a different first or longest delay, event age or attempt count is set on the trigger's
/// Pub/Sub subscription. What Eventarc cannot express is refused with the reason.
struct CloudRunTarget {
    let functions: [DeployableFunction]
    let project: String
    let image: String
    /// The service account Eventarc invokes the services as, when not the default one.
    let serviceAccount: String?
    /// The Pub/Sub topic events go to after their last attempt (needed for `maxAttempts`).
    let deadLetterTopic: String?
    /// The account the functions run as, whose roles their Admin calls use; `nil` for a
    /// `functions-runtime` account of the project, created when missing.
    let runtimeAccount: String?
    /// The Realtime Database URL given to the functions (`FIREBASE_CONFIG`); `nil` for the
    /// project's default instance.
    let databaseURL: String?
    /// The variables of the package's `.env` files and its params, given to every function.
    var environment: [String: String] = [:]

    /// The role each Firebase service's Admin calls need.
    static func role(_ service: AdminService) -> String {
        switch service {
        case .messaging: "roles/firebasecloudmessaging.admin"
        case .remoteConfig: "roles/cloudconfig.admin"
        case .database: "roles/firebasedatabase.admin"
        case .auth: "roles/firebaseauth.admin"
        case .firestore: "roles/datastore.user"
        case .pubsub: "roles/pubsub.publisher"
        case .tasks: "roles/cloudtasks.enqueuer"
        }
    }

    /// A service's name in words.
    static func title(_ service: AdminService) -> String {
        switch service {
        case .messaging: "Cloud Messaging"
        case .remoteConfig: "Remote Config"
        case .database: "Realtime Database"
        case .auth: "Authentication"
        case .firestore: "Cloud Firestore"
        case .pubsub: "Pub/Sub"
        case .tasks: "Cloud Tasks"
        }
    }

    /// The services a function's Admin calls use: those it declares, else all of them.
    static func services(_ function: DeployableFunction) -> [AdminService] {
        function.options.adminServices?.sorted() ?? AdminService.allCases
    }

    /// Each role the functions need, with the functions that need it, in the services' order.
    var roles: [(role: String, functions: [String])] {
        AdminService.allCases.compactMap { service in
            let users = functions.filter { Self.services($0).contains(service) }.map(\.name)
            return users.isEmpty ? nil : (Self.role(service), users)
        }
    }

    /// One `gcloud` line per function and role it needs, for the account `account`.
    func bindingLines(account: String) -> [String] {
        functions.flatMap { function in
            Self.services(function).map { service in
                "\(function.name) (\(Self.title(service))): gcloud projects add-iam-policy-binding \(project) "
                    + "--member=serviceAccount:\(account) --role=\(Self.role(service)) --condition=None"
            }
        }
    }

    /// The runtime account's address: the one given, else the project's `functions-runtime`.
    var runtimeAccountAddress: String { runtimeAccount ?? "functions-runtime@\(project).iam.gserviceaccount.com" }

    /// The script: build and push the image, then deploy each service and create its trigger.
    func script(image container: ContainerImage, generatedBy command: String) throws -> String {
        var lines = [
            "#!/usr/bin/env bash",
            "# Deploys the functions of '\(container.packagePath)' to Cloud Run, each with its Eventarc trigger.",
            "# Written by `\(command)`: review it, then run it.",
            "# Needs Docker (logged in to the image's registry) and gcloud 557 or later (--max-retry-attempts),",
            "# with the Cloud Run, Eventarc, Artifact Registry, Pub/Sub, Cloud Scheduler and Cloud Tasks APIs enabled in the project.",
            "set -euo pipefail",
            "cd \"$(dirname \"$0\")\"",
            "",
            "PROJECT=\"${PROJECT:-\(project)}\"",
            "IMAGE=\"${IMAGE:-\(image)}\"",
            "# The Realtime Database the functions' Admin calls reach (FIREBASE_CONFIG's databaseURL).",
            "DATABASE_URL=\"${DATABASE_URL:-" + (databaseURL ?? "https://$PROJECT-default-rtdb.firebaseio.com") + "}\"",
            "# The account the functions run as: their calls to Firebase carry its tokens, from the metadata server.",
            "RUNTIME_ACCOUNT=\"${RUNTIME_ACCOUNT:-" + (runtimeAccount ?? "functions-runtime@$PROJECT.iam.gserviceaccount.com")
                + "}\"",
            "",
            "# An Artifact Registry image's repository is created when it does not exist yet.",
            "if [[ \"$IMAGE\" =~ ^([a-z0-9-]+)-docker\\.pkg\\.dev/([^/]+)/([^/]+)/ ]]; then",
            "  location=\"${BASH_REMATCH[1]}\" registry_project=\"${BASH_REMATCH[2]}\" repository=\"${BASH_REMATCH[3]}\"",
            "  gcloud artifacts repositories describe \"$repository\" --project=\"$registry_project\" "
                + "--location=\"$location\" >/dev/null 2>&1 \\",
            "    || gcloud artifacts repositories create \"$repository\" --project=\"$registry_project\" "
                + "--location=\"$location\" --repository-format=docker",
            "fi",
            "docker build -f Dockerfile -t \"$IMAGE\" \(ShellWord.quoted(container.context.path))",
            "docker push \"$IMAGE\"",
            "",
            "# An account of the project is created when it does not exist yet.",
            "if [[ \"$RUNTIME_ACCOUNT\" == *\"@$PROJECT.iam.gserviceaccount.com\" ]] \\",
            "  && ! gcloud iam service-accounts describe \"$RUNTIME_ACCOUNT\" --project=\"$PROJECT\" >/dev/null 2>&1; then",
            "  gcloud iam service-accounts create \"${RUNTIME_ACCOUNT%%@*}\" --project=\"$PROJECT\" "
                + "--display-name=\"Functions runtime\"",
            "fi",
        ]
        for (role, users) in roles {
            // A new account reaches IAM after a while: the grant is tried again for up to a minute.
            lines.append("# \(users.joined(separator: ", ")) " + (users.count == 1 ? "needs" : "need") + " \(role).")
            lines.append("for attempt in 1 2 3 4 5 6; do")
            lines += Self.command(["gcloud", "projects", "add-iam-policy-binding", "\"$PROJECT\""],
                ["--member=\"serviceAccount:$RUNTIME_ACCOUNT\"", "--role=\(role)", "--condition=None", "--quiet",
                    ">/dev/null && break"]).map { "  " + $0 }
            lines += [
                "  if [ \"$attempt\" = 6 ]; then",
                "    echo \"warning: could not grant \(role) to $RUNTIME_ACCOUNT; grant it with an account that may set "
                    + "IAM policies, or the functions' calls will be refused\" >&2",
                "  else sleep 10; fi",
                "done",
            ]
        }
        if functions.contains(where: { $0.trigger != nil || $0.taskQueue != nil }) {
            // Eventarc calls the event services as this account: it needs to receive events and
            // to invoke them (a project without the default account's Editor role grants neither).
            // Cloud Scheduler and Cloud Tasks call theirs with its OIDC tokens.
            lines += [
                "",
                "# The account Eventarc delivers events as.",
                "TRIGGER_ACCOUNT=\"${TRIGGER_ACCOUNT:-" + (serviceAccount ?? "$(gcloud projects describe \"$PROJECT\" "
                    + "--format='value(projectNumber)')-compute@developer.gserviceaccount.com") + "}\"",
            ]
            if functions.contains(where: { $0.trigger != nil }) {
                lines += Self.grant(["gcloud", "projects", "add-iam-policy-binding", "\"$PROJECT\""],
                    ["--member=\"serviceAccount:$TRIGGER_ACCOUNT\"", "--role=roles/eventarc.eventReceiver",
                        "--condition=None", "--quiet"], what: "roles/eventarc.eventReceiver to $TRIGGER_ACCOUNT")
            }
        }
        let secrets = Set(functions.flatMap(\.secrets).map(\.secretName)).sorted()
        if !secrets.isEmpty {
            // Each secret's latest version when this runs is pinned (as firebase deploy does): a
            // new version reaches the functions at their next deploy. A missing secret stops here.
            lines += ["", "# The secrets the functions read, from Secret Manager; the runtime account may read them."]
            for secret in secrets {
                let variable = Self.versionVariable(secret)
                lines += ["\(variable)=\"$(gcloud secrets versions describe latest --secret=\(secret) --project=\"$PROJECT\" "
                    + "--format='value(name.basename())')\""]
                lines += Self.command(["gcloud", "secrets", "add-iam-policy-binding", secret],
                    ["--project=\"$PROJECT\"", "--member=\"serviceAccount:$RUNTIME_ACCOUNT\"",
                        "--role=roles/secretmanager.secretAccessor", "--condition=None", "--quiet", ">/dev/null"])
            }
        }
        var registrations: [String] = []
        for function in functions {
            if let schedule = function.trigger?.schedule {
                lines += ["", "# \(function.name): on the schedule \(schedule), by Cloud Scheduler"]
                lines += Self.command(["gcloud", "run", "deploy", function.serviceName], try runFlags(function))
                lines += try schedulerJob(function, schedule)
                lines += Self.grant(["gcloud", "run", "services", "add-iam-policy-binding", function.serviceName],
                    ["--project=\"$PROJECT\"", "--region=\(function.region)", "--member=\"serviceAccount:$TRIGGER_ACCOUNT\"",
                        "--role=roles/run.invoker", "--quiet"], what: "roles/run.invoker on \(function.serviceName) to $TRIGGER_ACCOUNT")
                continue
            }
            if let queue = function.taskQueue {
                lines += ["", "# \(function.name): a task queue, dispatched by Cloud Tasks"]
                lines += Self.command(["gcloud", "run", "deploy", function.serviceName], try runFlags(function))
                lines += taskQueue(function, queue)
                lines += Self.grant(["gcloud", "run", "services", "add-iam-policy-binding", function.serviceName],
                    ["--project=\"$PROJECT\"", "--region=\(function.region)", "--member=\"serviceAccount:$TRIGGER_ACCOUNT\"",
                        "--role=roles/run.invoker", "--quiet"], what: "roles/run.invoker on \(function.serviceName) to $TRIGGER_ACCOUNT")
                for member in function.invokers {
                    lines += Self.command(["gcloud", "run", "services", "add-iam-policy-binding", function.serviceName],
                        ["--project=\"$PROJECT\"", "--region=\(function.region)", "--member=" + ShellWord.quoted(member),
                            "--role=roles/run.invoker"])
                }
                continue
            }
            let trigger = try function.trigger.map { _ in try eventarcTrigger(function) }
            lines += ["", "# \(function.name): " + (trigger?.summary ?? "\(function.kind.summary), an HTTP service without a trigger")]
            lines += Self.command(["gcloud", "run", "deploy", function.serviceName], try runFlags(function))
            guard let trigger else {
                for member in function.invokers {
                    lines += Self.command(["gcloud", "run", "services", "add-iam-policy-binding", function.serviceName],
                        ["--project=\"$PROJECT\"", "--region=\(function.region)", "--member=" + ShellWord.quoted(member),
                            "--role=roles/run.invoker"])
                }
                if case .blocking(let blocking) = function.kind { registrations += registration(function, blocking) }
                continue
            }
            // A trigger deployed before takes this deployment's filters, destination, account and
            // retries. Eventarc cannot change a trigger's event type, nor lift a retry limit of 1
            // (what a function without retries gets): those take deleting the trigger.
            let describe = "gcloud eventarc triggers describe \(function.serviceName) --project=\"$PROJECT\" "
                + "--location=\(trigger.location)"
            lines += ["if \(describe) >/dev/null 2>&1; then"]
            if function.options.retry {
                lines += [
                    "  if [ \"$(\(describe) --format='value(retryPolicy.maxAttempts)')\" = 1 ]; then",
                    "    echo \"warning: trigger \(function.serviceName) was deployed without retries, which an update "
                        + "cannot turn back on: delete it (gcloud eventarc triggers delete \(function.serviceName) "
                        + "--project=$PROJECT --location=\(trigger.location)) and run this script again\" >&2",
                    "  fi",
                ]
            }
            let update = trigger.flags + (serviceAccount == nil ? ["--clear-service-account"] : [])
            lines += Self.command(["gcloud", "eventarc", "triggers", "update", function.serviceName], update)
                .map { "  " + $0 }
            lines.append("else")
            lines += Self.command(["gcloud", "eventarc", "triggers", "create", function.serviceName], trigger.flags)
                .map { "  " + $0 }
            lines.append("fi")
            if !trigger.subscriptionFlags.isEmpty {
                lines += [
                    "subscription=\"$(gcloud eventarc triggers describe \(function.serviceName) --project=\"$PROJECT\" "
                        + "--location=\(trigger.location) --format='value(transport.pubsub.subscription)')\"",
                ]
                lines += Self.command(["gcloud", "pubsub", "subscriptions", "update", "\"$subscription\""],
                    ["--project=\"$PROJECT\""] + trigger.subscriptionFlags)
                if let deadLetterTopic, trigger.subscriptionFlags.contains(where: { $0.hasPrefix("--dead-letter-topic=") }) {
                    // Pub/Sub forwards to the dead-letter topic as its service agent, which needs both.
                    lines += ["agent=\"service-$(gcloud projects describe \"$PROJECT\" --format='value(projectNumber)')"
                        + "@gcp-sa-pubsub.iam.gserviceaccount.com\""]
                    lines += Self.grant(["gcloud", "pubsub", "topics", "add-iam-policy-binding", ShellWord.quoted(deadLetterTopic)],
                        ["--project=\"$PROJECT\"", "--member=\"serviceAccount:$agent\"", "--role=roles/pubsub.publisher"],
                        what: "roles/pubsub.publisher on the dead-letter topic to $agent")
                    lines += Self.grant(["gcloud", "pubsub", "subscriptions", "add-iam-policy-binding", "\"$subscription\""],
                        ["--project=\"$PROJECT\"", "--member=\"serviceAccount:$agent\"", "--role=roles/pubsub.subscriber"],
                        what: "roles/pubsub.subscriber on $subscription to $agent")
                }
            }
            lines += Self.grant(["gcloud", "run", "services", "add-iam-policy-binding", function.serviceName],
                ["--project=\"$PROJECT\"", "--region=\(function.region)", "--member=\"serviceAccount:$TRIGGER_ACCOUNT\"",
                    "--role=roles/run.invoker", "--quiet"], what: "roles/run.invoker on \(function.serviceName) to $TRIGGER_ACCOUNT")
        }
        if !registrations.isEmpty {
            lines += ["", "# Blocking functions run only once Identity Platform is told to call them:"] + registrations
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The step that registers a blocking function with Identity Platform (there is no gcloud
    /// command for it): printed, for the user to run once they have reviewed it.
    func registration(_ function: DeployableFunction, _ blocking: BlockingTrigger) -> [String] {
        let event = blocking.event.jwtEventType
        let url = "$(gcloud run services describe \(function.serviceName) --project=\"$PROJECT\" "
            + "--region=\(function.region) --format='value(status.url)')"
        var options: [String] = []
        if blocking.idToken { options.append("\"idToken\":true") }
        if blocking.accessToken { options.append("\"accessToken\":true") }
        if blocking.refreshToken { options.append("\"refreshToken\":true") }
        let forward = options.isEmpty ? "" : ",\"forwardInboundCredentials\":{\(options.joined(separator: ","))}"
        let body = "{\"blockingFunctions\":{\"triggers\":{\"\(event)\":{\"functionUri\":\"$url\"}}\(forward)}}"
        let mask = "blockingFunctions.triggers.\(event)" + (options.isEmpty ? "" : ",blockingFunctions.forwardInboundCredentials")
        let when = event == "beforeCreate" ? "before every sign-up" : "before every sign-in"
        // An unquoted here-document: $PROJECT and $url expand, the JSON's quotes stay.
        return [
            "url=\"\(url)\"",
            "cat <<EOF",
            "To make Identity Platform call \(function.name) \(when), run:",
            "  curl -X PATCH -H \"Authorization: Bearer \\$(gcloud auth print-access-token)\" -H 'Content-Type: application/json' \\\\",
            "    'https://identitytoolkit.googleapis.com/admin/v2/projects/$PROJECT/config?updateMask=\(mask)' \\\\",
            "    -d '\(body)'",
            "EOF",
        ]
    }

    /// The flags of `gcloud run deploy` for one function.
    func runFlags(_ function: DeployableFunction) throws -> [String] {
        let options = function.options
        // FIREBASE_CONFIG's JSON holds commas, so the list names another delimiter (`^|^`).
        let platform = [
            "FUNCTION_TARGET=\(function.name)", "FUNCTION_SIGNATURE_TYPE=\(function.signatureType)",
            "GOOGLE_CLOUD_PROJECT=$PROJECT",
            #"FIREBASE_CONFIG={\"projectId\":\"$PROJECT\",\"databaseURL\":\"$DATABASE_URL\"}"#,
        ]
        let environment = platform + self.environment.sorted { $0.key < $1.key }.map { key, value in
            "\(key)=" + value.reduce(into: "") { escaped, character in
                if "\"$`\\".contains(character) { escaped.append("\\") }
                escaped.append(character)
            }
        }
        guard let delimiter = Self.delimiter(avoiding: Array(self.environment.values) + platform) else {
            throw CLIError("the .env values hold every delimiter gcloud's --set-env-vars could use (\(Self.delimiters.joined()))")
        }
        var flags = [
            "--project=\"$PROJECT\"",
            "--image=\"$IMAGE\"",
            "--region=\(function.region)",
            "--service-account=\"$RUNTIME_ACCOUNT\"",
            "--set-env-vars=\"^\(delimiter)^\(environment.joined(separator: delimiter))\"",
            "--concurrency=\(options.concurrency)",
            "--timeout=\(options.timeout.secondsText)s",
        ]
        if let memory = options.memoryMB {
            flags.append("--memory=\(memory)Mi")
            if let cpu = Self.cpus(forMemoryMB: memory) { flags.append("--cpu=\(cpu)") }
        }
        if !function.secrets.isEmpty {
            flags.append("--set-secrets=\"" + function.secrets.map {
                "\($0.key)=\($0.secretName):$\(Self.versionVariable($0.secretName))"
            }.joined(separator: ",") + "\"")
        }
        if let minimum = options.minInstances { flags.append("--min-instances=\(minimum)") }
        if let maximum = options.maxInstances { flags.append("--max-instances=\(maximum)") }
        // Only Eventarc (with its service account) may invoke an event function; HTTPS and
        // callable functions are public unless their invoker says otherwise.
        flags.append(function.isPublic ? "--allow-unauthenticated" : "--no-allow-unauthenticated")
        return flags
    }

    /// The script's variable holding the version of `secret` it deploys.
    static func versionVariable(_ secret: String) -> String {
        "SECRET_" + secret.map { $0.isLetter || $0.isNumber ? String($0).uppercased() : "_" }.joined() + "_VERSION"
    }

    /// The CPUs Cloud Run needs for `memory` MiB, `nil` when its default of 1 will do: more
    /// than 4 GiB needs 2, more than 8 GiB 4, more than 16 GiB 6, more than 24 GiB 8.
    static func cpus(forMemoryMB memory: Int) -> Int? {
        switch memory {
        case ...4096: nil
        case ...8192: 2
        case ...16384: 4
        case ...24576: 6
        default: 8
        }
    }

    /// What the script cannot carry of the functions' options, in words.
    var warnings: [String] {
        functions.compactMap { function in
            let backoff = function.options.backoff, defaults = BackoffPolicy()
            guard function.trigger != nil, function.options.retry,
                backoff.multiplier != defaults.multiplier || backoff.jitter != defaults.jitter
            else { return nil }
            return "'\(function.name)': Pub/Sub's retry policy takes only the first and the longest delay; "
                + "the backoff's multiplier (\(backoff.multiplier)) and jitter (\(backoff.jitter)) are not carried"
        }
    }

    /// An Eventarc trigger in gcloud terms.
    struct EventarcTrigger {
        var location: String
        var flags: [String]
        var subscriptionFlags: [String]
        var summary: String
    }

    /// The Eventarc trigger of a function, or why there can be none.
    func eventarcTrigger(_ function: DeployableFunction) throws -> EventarcTrigger {
        guard let trigger = function.trigger else { throw CLIError("function '\(function.name)' has no event trigger") }
        let type = trigger.eventType
        let location: String
        if type.hasPrefix("google.firebase.database.ref.v1.") {
            guard DeployableFunction.databaseRegions.contains(function.region) else {
                throw CLIError("function '\(function.name)': Realtime Database triggers run in the database's region ("
                    + DeployableFunction.databaseRegions.joined(separator: ", ")
                    + "), not '\(function.region)': set .region(...) to the database's")
            }
            location = function.region
        } else if type == FirebaseEventType.remoteConfigUpdated {
            location = "global"
        } else if type.hasPrefix("google.firebase.auth.user.v1.") || type.hasPrefix("google.firebase.analytics.") {
            throw CLIError("function '\(function.name)': Eventarc does not deliver '\(type)' (a 1st-gen "
                + "Firebase event) to Cloud Run; leave it out with --only")
        } else {
            location = function.region
        }
        var flags = [
            "--project=\"$PROJECT\"",
            "--location=\(location)",
            "--destination-run-service=\(function.serviceName)",
            "--destination-run-region=\(function.region)",
            "--event-filters=type=\(type)",
        ]
        var filters = trigger.filters
        if type == FirebaseEventType.pubSubPublished, let topic = filters.removeValue(forKey: "topic") {
            // Eventarc takes a Pub/Sub trigger's topic as its transport, not as a filter.
            // (A topic name holds letters, digits and -_.~+% only: nothing the shell reads in double quotes.)
            flags.append("--transport-topic=\"projects/$PROJECT/topics/\(topic)\"")
        }
        for (attribute, value) in filters.sorted(by: { $0.key < $1.key }) {
            flags.append("--event-filters=" + ShellWord.quoted(Self.dictionaryItem("\(attribute)=\(value)")))
        }
        if type.hasPrefix("google.cloud.firestore.document.v1.") {
            // Eventarc sends Firestore events as the protobuf DocumentEventData the triggers read.
            flags.append("--event-data-content-type=application/protobuf")
        }
        for (attribute, pattern) in trigger.pathPatterns.sorted(by: { $0.key < $1.key }) {
            flags.append("--event-filters-path-pattern=" + ShellWord.quoted(Self.dictionaryItem("\(attribute)=\(pattern)")))
        }
        if let serviceAccount { flags.append("--service-account=" + ShellWord.quoted(serviceAccount)) }
        var subscription: [String] = []
        let options = function.options
        if !options.retry {
            flags.append("--max-retry-attempts=1")
        } else {
            subscription = try subscriptionFlags(function)
        }
        var summary = type
        let patterns = trigger.pathPatterns.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        if !patterns.isEmpty { summary += " on " + patterns.joined(separator: ", ") }
        summary += options.retry ? ", retried" : ", not retried"
        return EventarcTrigger(location: location, flags: flags, subscriptionFlags: subscription, summary: summary)
    }

    /// The Cloud Scheduler job that fires a scheduled function, as firebase-tools names it: an
    /// HTTP POST to its service with an OIDC token of the trigger account, Cloud Scheduler's
    /// retries from the function's; created, or updated when it exists.
    func schedulerJob(_ function: DeployableFunction, _ schedule: Schedule) throws -> [String] {
        let options = function.options
        let retries = options.retry ? max(0, (options.maxAttempts ?? 1) - 1) : 0
        guard retries <= 5 else {
            throw CLIError("function '\(function.name)': Cloud Scheduler retries a firing at most 5 times, not \(retries)")
        }
        guard options.backoff.maximum <= .seconds(3_600) else {
            throw CLIError("function '\(function.name)': Cloud Scheduler waits at most 3600 s between retries, "
                + "not \(options.backoff.maximum.secondsText) s")
        }
        let job = ScheduledEvent.jobName(function: function.name, region: function.region)
        // Cloud Scheduler waits 15 s to 30 minutes for an answer.
        let deadline = min(max(Int(options.timeout.seconds.rounded(.up)), 15), 1_800)
        var flags = [
            "--project=\"$PROJECT\"", "--location=\(function.region)",
            "--schedule=" + ShellWord.quoted(schedule.expression), "--time-zone=" + ShellWord.quoted(schedule.timeZoneIdentifier),
            "--uri=\"$url\"",
            "--http-method=POST", "--oidc-service-account-email=\"$TRIGGER_ACCOUNT\"", "--attempt-deadline=\(deadline)s",
            "--max-retry-attempts=\(retries)", "--min-backoff=\(options.backoff.initial.secondsText)s",
            "--max-backoff=\(options.backoff.maximum.secondsText)s", "--max-doublings=\(options.backoff.maxDoublings ?? 16)",
        ]
        // Always given, 0s for no limit: an update keeps a flag it is not given.
        flags.append("--max-retry-duration="
            + (options.maxEventAge != FunctionOptions().maxEventAge ? options.maxEventAge.secondsText : "0") + "s")
        let describe = "gcloud scheduler jobs describe \(job) --project=\"$PROJECT\" --location=\(function.region)"
        return ["url=\"$(gcloud run services describe \(function.serviceName) --project=\"$PROJECT\" "
                + "--region=\(function.region) --format='value(status.url)')\"",
            "if \(describe) >/dev/null 2>&1; then"]
            + Self.command(["gcloud", "scheduler", "jobs", "update", "http", job], flags).map { "  " + $0 }
            + ["else"]
            + Self.command(["gcloud", "scheduler", "jobs", "create", "http", job], flags).map { "  " + $0 }
            + ["fi"]
    }

    /// The Cloud Tasks queue of a task-queue function, named after it: its retries and rate
    /// limits, and an HTTP override that sends every task to the function's service with an
    /// OIDC token of the trigger account (so enqueuers need not know the service's URL);
    /// created, or updated when it exists.
    func taskQueue(_ function: DeployableFunction, _ queue: TaskQueueTrigger) -> [String] {
        let retry = queue.retryConfig
        let flags = [
            "--project=\"$PROJECT\"", "--location=\(function.region)",
            "--max-attempts=\(retry.maxAttempts ?? -1)",
            // Always given, 0s for no limit: an update keeps a flag it is not given.
            "--max-retry-duration=\(retry.maxRetryDuration?.secondsText ?? "0")s",
            "--min-backoff=\(retry.minBackoff.secondsText)s", "--max-backoff=\(retry.maxBackoff.secondsText)s",
            "--max-doublings=\(retry.maxDoublings)",
            "--max-dispatches-per-second=\(queue.rateLimits.maxDispatchesPerSecond)",
            "--max-concurrent-dispatches=\(queue.rateLimits.maxConcurrentDispatches)",
            "--http-uri-override=\"scheme:https,host:${url#https://},path:/\"",
            "--http-oidc-service-account-email-override=\"$TRIGGER_ACCOUNT\"",
        ]
        let describe = "gcloud tasks queues describe \(function.name) --project=\"$PROJECT\" --location=\(function.region)"
        return ["url=\"$(gcloud run services describe \(function.serviceName) --project=\"$PROJECT\" "
                + "--region=\(function.region) --format='value(status.url)')\"",
            "if \(describe) >/dev/null 2>&1; then"]
            + Self.command(["gcloud", "tasks", "queues", "update", function.name], flags).map { "  " + $0 }
            + ["else"]
            + Self.command(["gcloud", "tasks", "queues", "create", function.name], flags).map { "  " + $0 }
            + ["fi"]
    }

    /// The Pub/Sub subscription settings of a retried function, all of them: Eventarc's
    /// defaults (10 s to 600 s, 24 hours, no dead-letter topic) when the function keeps them, so
    /// that a trigger deployed before with other settings goes back to them.
    private func subscriptionFlags(_ function: DeployableFunction) throws -> [String] {
        let options = function.options
        let initial = options.backoff.initial, maximum = options.backoff.maximum
        guard maximum <= .seconds(600) else {
            throw CLIError("function '\(function.name)': Pub/Sub waits at most 600 s between retries, "
                + "not \(maximum.secondsText) s: lower the backoff's maximum")
        }
        var flags = ["--min-retry-delay=\(initial.secondsText)s", "--max-retry-delay=\(maximum.secondsText)s"]
        let seconds = options.maxEventAge.seconds
        guard (600...(7 * 24 * 3600)).contains(seconds) else {
            throw CLIError("function '\(function.name)': Pub/Sub keeps events from 10 minutes to 7 days, "
                + "not \(options.maxEventAge.secondsText) s: change maxEventAge")
        }
        flags.append("--message-retention-duration=\(Int(seconds))s")
        guard let attempts = options.maxAttempts else { return flags + ["--clear-dead-letter-policy"] }
        guard let deadLetterTopic else {
            throw CLIError("function '\(function.name)': on Cloud Run, maxAttempts needs a dead-letter topic "
                + "(--dead-letter-topic) to send events to after their last attempt")
        }
        guard (5...100).contains(attempts) else {
            throw CLIError("function '\(function.name)': Pub/Sub allows 5 to 100 delivery attempts, not \(attempts)")
        }
        return flags + ["--dead-letter-topic=" + ShellWord.quoted(deadLetterTopic), "--max-delivery-attempts=\(attempts)"]
    }

    /// A grant of a role: setting IAM policies takes more than an Editor may, so one that fails
    /// says what is missing and the script goes on (the deploy itself needs no such right).
    static func grant(_ words: [String], _ flags: [String], what: String) -> [String] {
        command(words, flags + [">/dev/null || echo \"warning: could not grant \(what); grant it with an account "
            + "that may set IAM policies, or events will be refused\" >&2"])
    }

    /// A command over several lines, one flag a line.
    static func command(_ words: [String], _ flags: [String]) -> [String] {
        let all = [words.joined(separator: " ")] + flags
        return all.enumerated().map { index, part in
            (index == 0 ? "" : "  ") + part + (index == all.count - 1 ? "" : " \\")
        }
    }

    /// A `KEY=VALUE` item of a gcloud dictionary flag (`--event-filters`): gcloud splits such a
    /// flag's value at commas, so an item holding one names another delimiter first (`^|^`, as
    /// `gcloud topic escaping` describes).
    static func dictionaryItem(_ item: String) -> String {
        guard item.contains(",") else { return item }
        return "^\(delimiter(avoiding: [item]) ?? "|")^" + item
    }

    /// The delimiters a gcloud list flag may name (`^D^`), in order of preference.
    static let delimiters = ["|", "~", ";", "#", "%", "@", "!", "&", "*", "+"]

    /// The first delimiter none of `items` holds.
    static func delimiter(avoiding items: [String]) -> String? {
        delimiters.first { delimiter in !items.contains { $0.contains(delimiter) } }
    }
}
