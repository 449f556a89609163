/// Runs `run` beside `body`, then `shutdown` (which ends `run`), and returns once both have
/// ended: a service inside a test or a tool, as the bus's and the emulator's `withRunning` do.
package func withServiceRunning<Result>(
    run: @escaping @Sendable () async -> Void,
    shutdown: () async -> Void,
    _ body: () async throws -> Result
) async rethrows -> Result {
    async let running: Void = run()
    do {
        let result = try await body()
        await shutdown()
        await running
        return result
    } catch {
        await shutdown()
        await running
        throw error
    }
}
