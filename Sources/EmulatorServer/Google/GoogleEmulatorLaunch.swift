import Foundation

/// How to start one of Google's emulators: Java and the Google Cloud CLI component's jar,
/// found as `gcloud` finds them, or why it cannot be started.
struct GoogleEmulatorLaunch: Sendable, Hashable {
    /// The Java binary.
    let java: String
    /// The arguments after `java`, without the address.
    let arguments: [String]

    /// What each emulator is, and where the Google Cloud CLI keeps it.
    enum Kind: String, Sendable, CaseIterable {
        case firestore, pubsub

        /// Its name in messages.
        var displayName: String { self == .firestore ? "Firestore emulator" : "Pub/Sub emulator" }
        /// The variable clients read its address from.
        var variable: String { self == .firestore ? "FIRESTORE_EMULATOR_HOST" : "PUBSUB_EMULATOR_HOST" }
        /// The Google Cloud CLI component, and its Debian package.
        var component: (gcloud: String, debian: String) {
            self == .firestore
                ? ("cloud-firestore-emulator", "google-cloud-cli-firestore-emulator")
                : ("pubsub-emulator", "google-cloud-cli-pubsub-emulator")
        }
    }

    /// The launch of `kind`, found through `environment` (`JAVA_HOME`, `PATH`,
    /// `CLOUDSDK_ROOT_DIR`); or the one line that says what is missing and how to install it.
    static func find(_ kind: Kind, environment: [String: String] = ProcessInfo.processInfo.environment)
        -> Result<GoogleEmulatorLaunch, GoogleEmulatorError>
    {
        let path = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
        func executable(_ name: String) -> String? {
            path.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }
        let javaHome = environment["JAVA_HOME"].map { $0 + "/bin/java" }
        guard let java = javaHome.flatMap({ FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil })
            ?? executable("java")
        else {
            return .failure(GoogleEmulatorError(
                "the \(kind.displayName) needs Java 11 or later, and no java was found on PATH or in JAVA_HOME "
                    + "(install it: apt-get install openjdk-17-jre-headless)"))
        }
        var roots: [String] = []
        if let root = environment["CLOUDSDK_ROOT_DIR"] { roots.append(root) }
        // gcloud is usually a link into the SDK: <root>/bin/gcloud.
        if let gcloud = executable("gcloud") {
            let real = URL(fileURLWithPath: gcloud).resolvingSymlinksInPath()
            roots.append(real.deletingLastPathComponent().deletingLastPathComponent().path)
        }
        roots += ["/usr/lib/google-cloud-sdk", "/usr/share/google-cloud-sdk", "/opt/google-cloud-sdk"]
        if let home = environment["HOME"] { roots.append(home + "/google-cloud-sdk") }
        for root in roots {
            let platform = root + "/platform/"
            switch kind {
            case .firestore:
                let jar = platform + "cloud-firestore-emulator/cloud-firestore-emulator.jar"
                if FileManager.default.fileExists(atPath: jar) {
                    return .success(GoogleEmulatorLaunch(java: java, arguments: [
                        "-Duser.language=en", "-cp", jar, "com.google.cloud.datastore.emulator.firestore.CloudFirestore",
                    ]))
                }
            case .pubsub:
                let folder = platform + "pubsub-emulator/lib"
                let jars = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                if let jar = jars.filter({ $0.hasPrefix("cloud-pubsub-emulator-") && $0.hasSuffix("-all.jar") }).sorted().last {
                    return .success(GoogleEmulatorLaunch(java: java, arguments: ["-jar", folder + "/" + jar]))
                }
            }
        }
        return .failure(GoogleEmulatorError(
            "the \(kind.displayName) is not installed (gcloud components install \(kind.component.gcloud), "
                + "or apt-get install \(kind.component.debian))"))
    }

    /// The arguments that start it on `port` of 127.0.0.1; the Firestore emulator POSTs its
    /// trigger events to `functionsEmulator` (`host:port`).
    func command(port: Int, functionsEmulator: String?) -> [String] {
        var command = arguments + ["--host=127.0.0.1", "--port=\(port)"]
        if let functionsEmulator { command.append("--functions_emulator=\(functionsEmulator)") }
        return command
    }
}

/// Why one of Google's emulators is not running.
public struct GoogleEmulatorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, and how to mend it, in one line.
    public var message: String
    public var description: String { message }

    init(_ message: String) { self.message = message }
}
