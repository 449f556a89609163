import CloudFunctions
import FunctionsWorker
import Testing

@Suite("A functions binary's configuration, read once from its environment")
struct WorkerConfigurationTests {
    @Test("locally: loopback, any free port, text logs; in a container (K_SERVICE): every interface, 8080, JSON logs")
    func defaults() throws {
        let local = try WorkerConfiguration(environment: [:])
        #expect(local.host == "127.0.0.1" && local.port == 0 && !local.logsAsJSON)
        #expect(local.shutdownGracePeriod == .seconds(10) && !local.stopsWhenStandardInputCloses && !local.underEmulator)
        let container = try WorkerConfiguration(environment: [
            "K_SERVICE": "pushconfig", "FUNCTION_TARGET": "pushConfig", "FIREBASE_CONFIG": #"{"projectId": "p"}"#,
        ])
        #expect(container.host == "0.0.0.0" && container.port == 8080 && container.logsAsJSON)
        #expect(container.target == "pushConfig" && container.project == "p")
        let emulated = try WorkerConfiguration(environment: [
            "FUNCTIONS_EMULATOR": "true", "FUNCTIONS_STOP_ON_STDIN_EOF": "true", "LOG_FORMAT": "JSON",
            "FUNCTIONS_SHUTDOWN_GRACE_SECONDS": "2.5", "GCLOUD_PROJECT": "demo",
        ])
        #expect(emulated.underEmulator && emulated.stopsWhenStandardInputCloses && emulated.logsAsJSON)
        #expect(emulated.shutdownGracePeriod == .milliseconds(2500) && emulated.project == "demo")
    }

    @Test("a setting that is not valid is named", arguments: [
        (["PORT": "70000"], "PORT must be a number between 0 and 65535"),
        (["LOG_FORMAT": "xml"], "LOG_FORMAT 'xml' is not a log format: use json or text"),
        (["FUNCTIONS_SHUTDOWN_GRACE_SECONDS": "-1"], "FUNCTIONS_SHUTDOWN_GRACE_SECONDS must be a number of seconds from 0 to 3600"),
    ])
    func refusals(environment: [String: String], message: String) {
        #expect { try WorkerConfiguration(environment: environment) } throws: { "\($0)" == message }
    }

    @Test("the target must be one of the binary's functions, and serve the signature type asked for")
    func target() throws {
        var functions = FunctionRegistry()
        functions["config"] = RemoteConfig.onUpdate { _, _ in }
        functions["hello"] = Https.onRequest { _, _ in }
        try WorkerConfiguration(environment: ["FUNCTION_TARGET": "config", "FUNCTION_SIGNATURE_TYPE": "cloudevent"])
            .check(against: functions)
        try WorkerConfiguration(environment: ["FUNCTION_TARGET": "hello", "FUNCTION_SIGNATURE_TYPE": "http"])
            .check(against: functions)
        #expect {
            try WorkerConfiguration(environment: ["FUNCTION_TARGET": "nope"]).check(against: functions)
        } throws: { "\($0)" == "FUNCTION_TARGET 'nope' is not a function of this binary; it has: config, hello" }
        #expect {
            try WorkerConfiguration(environment: ["FUNCTION_TARGET": "hello", "FUNCTION_SIGNATURE_TYPE": "cloudevent"])
                .check(against: functions)
        } throws: { "\($0)".hasPrefix("FUNCTION_SIGNATURE_TYPE 'cloudevent' is not served: 'hello' answers HTTP requests") }
    }
}
