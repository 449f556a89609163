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
/// - `onScoreWrite`: keeps `/leaderboard/{playerName}` at each player's best score.
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

        functions["onScoreWrite"] = Database.ref("/scores/{scoreId}").options(.concurrency(1)).onWrite {
            change, context in
            guard let player = change.after.child("player").val().stringValue,
                let points = change.after.child("points").val().numberValue
            else { return }
            let best = context.database.ref("leaderboard/\(player)")
            if (try await best.get().val().numberValue ?? -.infinity) < points {
                try await best.set(.number(points))
            }
        }
    }
}
