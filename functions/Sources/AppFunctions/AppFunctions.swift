import FunctionsWorker

/// The sample app's functions.
///
/// - `pushConfig`: every Remote Config publish or rollback pings the devices on `PUSH_RC`
///   with `{"CONFIG_STATE": "STALE"}`, so their next fetch skips the cache.
/// - `onUserCreated`: keeps the profile fields a user record cannot hold in `/users/{uid}`,
///   as apps migrated from Parse do.
/// - `onScoreWrite`: keeps `/leaderboard/{playerName}` at each player's best `score` among the
///   `GameScore` entries clients write under `/scores` (entries with `cheatMode: true` never count).
/// - `submitScore`: a callable the app calls with `{playerName, score}`; it checks the caller is
///   signed in and the score is valid, and writes the entry under `/scores`, so `onScoreWrite` runs.
/// - `checkSignUp`: a blocking function that refuses sign-ups from disposable e-mail domains and
///   gives every new user the custom claim `role: "player"`.
/// - `onGameScoreDocument`: the same leaderboard in Cloud Firestore: GameScore documents in
///   `gameScores` keep `leaderboards/{playerName}` = `{"best": N}` at each player's best score.
/// - `recountLeaderboard`: a task queue; each task `{"playerName"}` recomputes
///   `/leaderboard/{playerName}` from every entry under `/scores`, with `onScoreWrite`'s rule
///   (after scores are deleted or flagged as cheats, which `onScoreWrite` never lowers).
/// - `nightlyDigest`: every day at 03:00 UTC, writes `/digests/{yyyy-mm-dd}` with the number of
///   scores and the three best players.
/// - `onScoreSubmitted`: each JSON message `{playerName, score}` on the Pub/Sub topic
///   `score-submissions` becomes a `gameScores` document named after the message id, so a
///   message delivered twice writes nothing new.
@main
struct AppFunctions: FunctionsApp {
    /// The highest score `submitScore` accepts: a param, set in `.env` (here 1000000), which
    /// `.env.<projectId>` or, in the emulator, `.env.local` may override.
    static let maxScore = Param.int("MAX_SCORE", default: 1_000_000, description: "The highest score submitScore accepts")

    static func register(_ functions: inout FunctionRegistry) {
        functions.declare(maxScore)
        functions.use(PushConfig(topic: "PUSH_RC"))

        // `.uses(...)` names the Firebase services a function calls: deployed, it gets only their roles.
        functions["onUserCreated"] = Auth.user().options(.uses(.database)).onCreate { user, context in
            let created = user.metadata.creationTime ?? context.timestamp
            try await context.database.ref("users/\(user.uid)").set(encoding: Profile(
                email: user.email, displayName: user.displayName, createdAt: RFC3339Timestamp.string(from: created)))
        }

        // Clients write Parse-style GameScore objects under /scores: {playerName, score, cheatMode}.
        // A transaction keeps the best score even when invocations run side by side or an event
        // is delivered twice, so no concurrency limit is needed.
        functions["onScoreWrite"] = Database.ref("/scores/{scoreId}").options(.uses(.database)).onWrite { change, context in
            let entry = change.after
            guard let player = entry.child("playerName").val().stringValue, Self.isValidKey(player),
                let score = entry.child("score").val().numberValue,
                entry.child("cheatMode").val().boolValue != true
            else { return }
            let raised = try await context.database.ref("leaderboard").child(player).transaction { best in
                if let best = best.numberValue, best >= score { return nil }
                return .number(score)
            }
            if raised != nil {
                context.logger.info("new best score for \(player): \(Int(exactly: score).map(String.init) ?? "\(score)")")
            }
        }

        // Every day at 03:00 UTC: how many scores there are, and the three best players, under
        // /digests/{yyyy-mm-dd}. A firing delivered twice writes the same digest again.
        functions["nightlyDigest"] = Scheduler.cron("0 3 * * *").options(.uses(.database)).onRun { event, context in
            let scores = try await context.database.ref("scores").get().numChildren()
            let best = try await context.database.ref("leaderboard").get().val().objectValue ?? [:]
            var players: [(name: String, best: Double)] = []
            for (name, score) in best {
                if let score = score.numberValue { players.append((name, score)) }
            }
            players.sort { $0.best != $1.best ? $0.best > $1.best : $0.name < $1.name }
            let top: [JSONValue] = players.prefix(3).map { ["playerName": .string($0.name), "best": .number($0.best)] }
            let day = String(RFC3339Timestamp.string(from: event.scheduleTime).prefix(10))
            try await context.database.ref("digests/\(day)").set(["scores": .number(Double(scores)), "top": .array(top)])
        }

        // Tasks {"playerName"} enqueued by firebase-admin's task_queue("recountLeaderboard") or by
        // `context.tasks.enqueue(...)`: at most 50 a second, a failed one retried 5 times.
        functions["recountLeaderboard"] = Tasks.queue(
            retry: TaskRetryConfig(maxAttempts: 5, minBackoff: .seconds(1), maxBackoff: .seconds(60)),
            rateLimits: TaskRateLimits(maxConcurrentDispatches: 10, maxDispatchesPerSecond: 50)
        ).options(.uses(.database)).onDispatch { (request: TaskRequest<Recount>) in
            let player = request.data.playerName
            guard Self.isValidKey(player) else {
                throw CallableError(.invalidArgument, "'\(player)' cannot be a database key")
            }
            let scores = try await request.context.database.ref("scores").get().val().objectValue ?? [:]
            let best = scores.values.compactMap { entry -> Double? in
                guard entry["playerName"]?.stringValue == player, entry["cheatMode"]?.boolValue != true else { return nil }
                return entry["score"]?.numberValue
            }.max()
            let entry = request.context.database.ref("leaderboard").child(player)
            if let best {
                try await entry.set(.number(best))
            } else {
                try await entry.remove()
            }
            request.context.logger.info("recounted \(player): \(best.map { "\($0)" } ?? "no score")")
        }

        functions["submitScore"] = Https.onCall { (request: CallableRequest<ScoreSubmission>) in
            let caller = try request.requireAuth()
            let entry = request.data
            guard Self.isValidKey(entry.playerName) else {
                throw CallableError(.invalidArgument, "playerName must be a non-empty name without . # $ [ ] or /",
                    details: ["field": "playerName"])
            }
            let maxScore = try request.context.value(Self.maxScore)
            guard entry.score.isFinite, entry.score == entry.score.rounded(), (0...Double(maxScore)).contains(entry.score) else {
                throw CallableError(.invalidArgument, "score must be a whole number from 0 to \(maxScore)",
                    details: ["field": "score"])
            }
            let ref = try await request.context.database.ref("scores").push([
                "playerName": .string(entry.playerName), "score": .number(entry.score), "cheatMode": false,
                "uid": .string(caller.uid),
            ])
            return ["id": ref.key ?? ""]
        }.options(.uses(.database))

        // The same game on Cloud Firestore. A transaction keeps the best score: a repeated or
        // concurrent delivery never lowers it, so a failed one is safely retried (Google's
        // Firestore emulator times out concurrent transactions on one document rather than
        // letting one win, as the service does).
        functions["onGameScoreDocument"] = Firestore.document("gameScores/{scoreId}").options(.uses(.firestore), .retry(true)).onWrite {
            change, context in
            let entry = change.after
            guard entry.exists, let player = entry["playerName"]?.stringValue, Self.isValidKey(player),
                let score = entry["score"]?.numberValue, entry["cheatMode"]?.boolValue != true
            else { return }
            let leaderboard = "leaderboards/\(player)"
            let raised = try await context.firestore.runTransaction { transaction in
                if let best = try await transaction.get(leaderboard)["best"]?.numberValue, best >= score { return false }
                transaction.set(leaderboard, ["best": Int64(exactly: score).map(FirestoreValue.integer) ?? .double(score)])
                return true
            }
            if raised { context.logger.info("new best score for \(player) in Firestore: \(score)") }
        }

        // Scores published by game servers on Pub/Sub become GameScore documents.
        functions["onScoreSubmitted"] = PubSub.topic("score-submissions").onMessagePublished { message, context in
            let entry = try message.json(as: ScoreSubmission.self)
            guard Self.isValidKey(entry.playerName), entry.score.isFinite, (0...1_000_000).contains(entry.score) else {
                context.logger.warning("ignored an invalid score submission", metadata: ["messageId": "\(message.messageId)"])
                return
            }
            do {
                try await context.firestore.create("gameScores/\(message.messageId)", [
                    "playerName": .string(entry.playerName), "score": Int64(exactly: entry.score).map(FirestoreValue.integer)
                        ?? .double(entry.score), "cheatMode": false,
                ])
            } catch let error as FirestoreError where error.status == "ALREADY_EXISTS" {
                // The same message delivered again: its document is there already.
            }
        }.options(.uses(.firestore))

        functions["checkSignUp"] = Identity.beforeUserCreated { event in
            let domain = event.data.email?.split(separator: "@").last.map { $0.lowercased() } ?? ""
            if Self.disposableDomains.contains(domain) {
                throw CallableError(.permissionDenied, "sign-ups from disposable e-mail domains are not accepted",
                    details: ["domain": .string(domain)])
            }
            return BeforeCreateResponse(customClaims: ["role": "player"])
        }.options(.uses())
    }

    /// The e-mail domains of throwaway inboxes, refused at sign-up.
    static let disposableDomains: Set<String> = ["mailinator.com", "guerrillamail.com", "10minutemail.com", "yopmail.com"]

    /// Whether a player name can be a database key (no `.`, `#`, `$`, `[`, `]` or `/`).
    static func isValidKey(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 768 && !name.contains(where: { ".#$[]/".contains($0) })
    }
}

/// What `onUserCreated` keeps at `/users/{uid}` (a field without a value is left out).
struct Profile: Encodable {
    var email: String?
    var displayName: String?
    var createdAt: String
}

/// A `recountLeaderboard` task's data.
struct Recount: Codable, Sendable {
    var playerName: String
}

/// What the app sends `submitScore`.
struct ScoreSubmission: Decodable, Sendable {
    var playerName: String
    var score: Double
}
