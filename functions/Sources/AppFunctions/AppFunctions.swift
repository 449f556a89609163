import CloudEvents
import CloudFunctions
import FunctionsBuiltins
import FunctionsWorker

/// The sample app's functions.
///
/// - `pushConfig`: every Remote Config publish or rollback pings the devices on `PUSH_RC`
///   with `{"CONFIG_STATE": "STALE"}`, so their next fetch skips the cache.
/// - `onUserCreated`: keeps the profile fields a user record cannot hold in `/users/{uid}`,
///   as apps migrated from Parse do.
/// - `onScoreWrite`: keeps `/leaderboard/{playerName}` at each player's best `score` among the
///   `GameScore` entries clients write under `/scores` (entries with `cheatMode: true` never count).
@main
struct AppFunctions: FunctionsApp {
    static func register(_ functions: inout FunctionRegistry) {
        functions.use(PushConfig(topic: "PUSH_RC"))

        functions["onUserCreated"] = Auth.user().onCreate { user, context in
            try await context.database.ref("users/\(user.uid)").set([
                "email": user.email.map(JSONValue.string) ?? .null,
                "displayName": user.displayName.map(JSONValue.string) ?? .null,
                "createdAt": .string(RFC3339Timestamp.string(from: user.metadata.creationTime ?? context.timestamp)),
            ])
        }

        // Clients write Parse-style GameScore objects under /scores: {playerName, score, cheatMode}.
        // A transaction keeps the best score even when invocations run side by side or an event
        // is delivered twice, so no concurrency limit is needed.
        functions["onScoreWrite"] = Database.ref("/scores/{scoreId}").onWrite { change, context in
            let entry = change.after
            guard let player = entry.child("playerName").val().stringValue, Self.isValidKey(player),
                let score = entry.child("score").val().numberValue,
                entry.child("cheatMode").val().boolValue != true
            else { return }
            try await context.database.ref("leaderboard").child(player).transaction { best in
                if let best = best.numberValue, best >= score { return nil }
                return .number(score)
            }
        }
    }

    /// Whether a player name can be a database key (no `.`, `#`, `$`, `[`, `]` or `/`).
    static func isValidKey(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 768 && !name.contains(where: { ".#$[]/".contains($0) })
    }
}
