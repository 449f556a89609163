import FunctionsBus
import Synchronization
import Testing

@Suite("Task scope", .timeLimit(.minutes(1)))
struct TaskScopeTests {
    @Test("a child cancelled by id sees the cancellation; wait(for:) returns once it has ended")
    func cancelAndWait() async {
        let scope = TaskScope()
        let runner = Task { await scope.run() }
        let sawCancellation = Mutex(false)
        let sleeper = scope.spawn { _ in
            let (stream, _) = AsyncStream.makeStream(of: Void.self)
            for await _ in stream {}   // ends only when cancelled
            sawCancellation.withLock { $0 = Task.isCancelled }
        }
        let quick = scope.spawn { _ in }
        await scope.wait(for: quick)
        scope.cancel(sleeper)
        await scope.wait(for: sleeper)
        #expect(sawCancellation.withLock { $0 })
        scope.finish()
        await runner.value
    }

    @Test("finish cancels what still runs, and run returns only after every child has ended")
    func finishEndsEveryChild() async {
        let scope = TaskScope()
        let runner = Task { await scope.run() }
        let ended = Mutex(0)
        for _ in 0..<5 {
            scope.spawn { _ in
                let (stream, _) = AsyncStream.makeStream(of: Void.self)
                for await _ in stream {}
                ended.withLock { $0 += 1 }
            }
        }
        scope.finish()
        await runner.value
        #expect(ended.withLock { $0 } == 5)
    }

    @Test("a child started after finish never runs, and waiting for it returns at once")
    func spawnAfterFinish() async {
        let scope = TaskScope()
        let runner = Task { await scope.run() }
        scope.finish()
        await runner.value
        let ran = Mutex(false)
        let late = scope.spawn { _ in ran.withLock { $0 = true } }
        await scope.wait(for: late)
        #expect(!ran.withLock { $0 })
    }
}
