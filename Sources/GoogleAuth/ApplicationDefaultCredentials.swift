import CloudFunctions
import FirebaseHTTP
import Foundation

/// Google's application default credentials (ADC), found as Google's client libraries find
/// them, and the access tokens they give, for the Admin calls of code running in production.
///
/// The credentials are the first of:
/// 1. the file `GOOGLE_APPLICATION_CREDENTIALS` names: a service account key (an RS256-signed
///    JWT-bearer assertion is exchanged at its `token_uri`) or a user's `authorized_user`
///    credentials (the refresh-token grant); when it is set and cannot be used, nothing else is tried;
/// 2. gcloud's file, `$CLOUDSDK_CONFIG/application_default_credentials.json` (by default under
///    `~/.config/gcloud`), written by `gcloud auth application-default login`;
/// 3. the metadata server of Cloud Run, GKE or Compute Engine (`GCE_METADATA_HOST`, else
///    169.254.169.254), which gives the tokens of the service account the code runs as.
///
/// Nothing is read until the first token or project is asked for. The credentials found are
/// kept for the process; the token is kept and renewed ``TokenCache/defaultMargin`` before it
/// expires, one renewal at a time. When none can be had, the error lists each source tried and
/// why it failed, and the next call tries again.
public struct ApplicationDefaultCredentials: AdminCredentials, CustomStringConvertible, CustomReflectable {
    /// The variables read; the others are not kept (a printed client shows none of the process's).
    static let variables: Set<String> = [
        "GOOGLE_APPLICATION_CREDENTIALS", "CLOUDSDK_CONFIG", "HOME", "GCE_METADATA_HOST", "GOOGLE_CLOUD_PROJECT",
        "GCLOUD_PROJECT", "CLOUDSDK_CORE_PROJECT", "GOOGLE_CLOUD_QUOTA_PROJECT",
    ]

    /// The scopes asked for: one token serves Cloud Messaging, Remote Config, the Realtime
    /// Database and Authentication (the Admin SDK for Node asks for the same).
    public static let firebaseScopes = [
        "https://www.googleapis.com/auth/cloud-platform",
        "https://www.googleapis.com/auth/firebase.database",
        "https://www.googleapis.com/auth/firebase.messaging",
        "https://www.googleapis.com/auth/identitytoolkit",
        "https://www.googleapis.com/auth/userinfo.email",
    ]

    private let environment: [String: String]
    private let configuredProject: String?
    private let metadata: MetadataServer
    private let source: ResolvedOnce<CredentialSource>
    private let tokens: TokenCache
    private let project: ResolvedOnce<String>

    /// Creates the credentials of a process with this environment.
    ///
    /// - Parameters:
    ///   - environment: the variables read: `GOOGLE_APPLICATION_CREDENTIALS`, `CLOUDSDK_CONFIG`,
    ///     `HOME`, `GCE_METADATA_HOST`, `GOOGLE_CLOUD_PROJECT`, `GCLOUD_PROJECT`,
    ///     `CLOUDSDK_CORE_PROJECT`, `GOOGLE_CLOUD_QUOTA_PROJECT`.
    ///   - configuredProject: the project of the app's configuration (`FIREBASE_CONFIG`'s
    ///     `projectId`), used when no project variable is set.
    ///   - scopes: the scopes of service account and metadata server tokens.
    ///   - clock: the time source for expiries and assertions.
    public init(
        environment: [String: String],
        configuredProject: String? = nil,
        scopes: [String] = ApplicationDefaultCredentials.firebaseScopes,
        clock: any BusClock = SystemClock()
    ) {
        let environment = environment.filter { Self.variables.contains($0.key) }
        self.environment = environment
        self.configuredProject = configuredProject
        let metadata = MetadataServer(environment: environment)
        self.metadata = metadata
        let source = ResolvedOnce { try await Self.find(environment, metadata: metadata) }
        self.source = source
        let quotaProject = Self.variable("GOOGLE_CLOUD_QUOTA_PROJECT", environment)
        tokens = TokenCache(clock: clock) {
            let found = try await source.value()
            do {
                return try await found.token(scopes: scopes, quotaProject: quotaProject, clock: clock)
            } catch {
                throw CredentialsError("access token", attempts: [.init(source: found.name, reason: "\(error)")])
            }
        }
        project = ResolvedOnce { try await Self.findProject(source: source, metadata: metadata) }
    }

    /// The project: `GOOGLE_CLOUD_PROJECT`, `GCLOUD_PROJECT`, the configured project, the service
    /// account key's `project_id` (for user credentials, gcloud's configured project), or the
    /// metadata server's.
    public func projectID() async throws -> String {
        if let named = Self.variable("GOOGLE_CLOUD_PROJECT", environment) ?? Self.variable("GCLOUD_PROJECT", environment)
            ?? configuredProject
        {
            return named
        }
        return try await project.value()
    }

    public func accessToken() async throws -> AccessToken {
        try await tokens.token()
    }

    public func refused(_ token: AccessToken) async {
        tokens.refused(token)
    }

    public var description: String { "application default credentials" }

    public var customMirror: Mirror { Mirror(self, children: []) }

    /// The source of the credentials, in ADC's order.
    static func find(_ environment: [String: String], metadata: MetadataServer) async throws -> CredentialSource {
        let gcloud = gcloudDirectory(environment)
        let gcloudProject = { Self.gcloudProject(environment, directory: gcloud) }
        var attempts: [CredentialsError.Attempt] = []
        if let path = variable("GOOGLE_APPLICATION_CREDENTIALS", environment) {
            let origin = "GOOGLE_APPLICATION_CREDENTIALS (\(path))"
            do {
                return try CredentialSource.file(at: path, origin: origin, gcloudProject: gcloudProject())
            } catch {
                throw CredentialsError("Google credentials", attempts: [.init(source: origin, reason: error.description)])
            }
        }
        attempts.append(.init(source: "GOOGLE_APPLICATION_CREDENTIALS", reason: "not set"))
        let wellKnown = gcloud.appendingPathComponent("application_default_credentials.json").path
        let origin = "gcloud's application default credentials (\(wellKnown))"
        if FileManager.default.fileExists(atPath: wellKnown) {
            do {
                return try CredentialSource.file(at: wellKnown, origin: origin, gcloudProject: gcloudProject())
            } catch {
                throw CredentialsError("Google credentials", attempts: attempts + [.init(source: origin, reason: error.description)])
            }
        }
        attempts.append(.init(source: origin, reason: "no such file (`gcloud auth application-default login` writes it)"))
        do {
            return .metadataServer(metadata, project: try await metadata.projectID())
        } catch {
            attempts.append(.init(source: metadata.name, reason: "\(error)"))
        }
        throw CredentialsError("Google credentials", attempts: attempts)
    }

    /// The project of the credentials found, else of the metadata server.
    static func findProject(source: ResolvedOnce<CredentialSource>, metadata: MetadataServer) async throws -> String {
        var attempts: [CredentialsError.Attempt] = [
            .init(source: "GOOGLE_CLOUD_PROJECT, GCLOUD_PROJECT and FIREBASE_CONFIG", reason: "name no project"),
        ]
        switch try await source.value() {
        case .metadataServer(_, let project):
            return project
        case .serviceAccount(let key, let origin):
            if let project = key.projectID { return project }
            attempts.append(.init(source: origin, reason: "the key has no project_id"))
        case .authorizedUser(_, let origin, let gcloudProject):
            if let gcloudProject { return gcloudProject }
            attempts.append(.init(source: origin, reason: "user credentials name no project, nor does gcloud's configuration"))
        }
        do {
            return try await metadata.projectID()
        } catch {
            attempts.append(.init(source: metadata.name, reason: "\(error)"))
        }
        throw CredentialsError("Google Cloud project id", attempts: attempts)
    }

    /// gcloud's configuration folder: `CLOUDSDK_CONFIG`, else `~/.config/gcloud`.
    static func gcloudDirectory(_ environment: [String: String]) -> URL {
        if let directory = variable("CLOUDSDK_CONFIG", environment) { return URL(fileURLWithPath: directory) }
        let home = variable("HOME", environment) ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".config/gcloud")
    }

    /// The project gcloud is set to: `CLOUDSDK_CORE_PROJECT`, else `core/project` of its active
    /// configuration (`gcloud config set project`).
    static func gcloudProject(_ environment: [String: String], directory: URL) -> String? {
        if let project = variable("CLOUDSDK_CORE_PROJECT", environment) { return project }
        let active = (try? String(contentsOf: directory.appendingPathComponent("active_config"), encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let name = active.flatMap { $0.isEmpty ? nil : $0 } ?? "default"
        guard let text = try? String(contentsOf: directory.appendingPathComponent("configurations/config_\(name)"),
            encoding: .utf8)
        else { return nil }
        var section = ""
        for line in text.split(whereSeparator: \.isNewline) {
            let line = line.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") && line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast())
                continue
            }
            let pair = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if section == "core", pair.count == 2, pair[0] == "project", !pair[1].isEmpty { return pair[1] }
        }
        return nil
    }

    /// A variable's value; `nil` when unset or empty.
    static func variable(_ name: String, _ environment: [String: String]) -> String? {
        environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }
}
