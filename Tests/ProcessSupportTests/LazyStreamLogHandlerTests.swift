import Logging
import ProcessSupport
import Synchronization
import Testing

/// The worker's and the emulator's text log lines.
@Suite("Lazy stream log handler")
struct LazyStreamLogHandlerTests {
    /// Collects the lines written.
    final class Lines: TextOutputStream, Sendable {
        let written = Mutex<[String]>([])
        func write(_ string: String) { written.withLock { $0.append(string) } }
        /// The lines without their timestamps (the first word).
        var withoutTimestamps: [String] { written.withLock { $0.map { String($0.drop { $0 != " " }) } } }
    }

    @Test("writes the lines swift-log's StreamLogHandler writes: metadata of the logger, its provider and the line")
    func sameLines() {
        let provider = Logger.MetadataProvider { ["trace": "t1", "shared": "from-provider"] }
        let lazyLines = Lines(), streamLines = Lines()
        var lazy = Logger(label: "worker") { _ in
            LazyStreamLogHandler(stream: StreamLogHandler(label: "worker", stream: lazyLines, metadataProvider: nil),
                metadataProvider: provider)
        }
        var stream = Logger(label: "worker") { _ in
            StreamLogHandler(label: "worker", stream: streamLines, metadataProvider: provider)
        }
        lazy.logLevel = .debug
        stream.logLevel = .debug
        lazy.info("no metadata yet")
        stream.info("no metadata yet")
        lazy[metadataKey: "function"] = "onScoreWrite"
        stream[metadataKey: "function"] = "onScoreWrite"
        lazy[metadataKey: "shared"] = "from-logger"
        stream[metadataKey: "shared"] = "from-logger"
        lazy.debug("handled", metadata: ["event": "e1", "function": "explicit"])
        stream.debug("handled", metadata: ["event": "e1", "function": "explicit"])
        lazy.trace("below the level")
        stream.trace("below the level")
        lazy.warning("done")
        stream.warning("done")
        #expect(lazyLines.withoutTimestamps.count == 3)
        #expect(lazyLines.withoutTimestamps == streamLines.withoutTimestamps)
        #expect(lazyLines.withoutTimestamps[1].contains("function=explicit"))
    }
}
