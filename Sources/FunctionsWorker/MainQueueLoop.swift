#if canImport(Glibc) || canImport(Musl)
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Keeps the main thread of a Linux process serving the main dispatch queue (so `@MainActor`
/// code runs) without ever exiting it.
///
/// An `async` main on Linux ends its first step in `dispatch_main()`, which leaves the main
/// queue to libdispatch's threads and calls `pthread_exit` on the main thread. That exit
/// unwinds the main thread's stack through the binary's unwind tables, and the binary search
/// of a large executable's table maps some 0.8 MB of it into the process for good: the largest
/// single item of a worker's idle memory that is not code it needs. Here the main thread waits
/// on the main queue's wake-up descriptor instead, and drains the queue when woken, as
/// Foundation's `RunLoop` does on Linux (without the run loop's own code). Where libdispatch
/// does not export the two functions this needs to `dlsym` (a binary built with
/// `--static-swift-stdlib`, as the container images are), ``run()`` falls back to
/// `dispatch_main()`: `@MainActor` code then runs on libdispatch's threads, as before. (Linux
/// only: macOS keeps the `async` main, whose main thread serves the main queue already.)
enum MainQueueLoop {
    /// Serves the main queue on the calling thread, the main thread, until the process exits.
    static func run() -> Never {
        if let queue = MainQueueHooks() {
            let descriptor = queue.handle()
            if descriptor >= 0 {
                var wakeUp = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                while true {
                    // Jobs queued before the descriptor existed woke nothing: drain first, then wait
                    // (draining an empty queue is harmless).
                    queue.drain(nil)
                    // A signal (EINTR) goes round again; another failure waits a little first.
                    while poll(&wakeUp, 1, -1) < 0 {
                        if errno != EINTR { usleep(10_000) }
                    }
                    // An eventfd reads as its 8-byte count, which the read resets.
                    var count: UInt64 = 0
                    _ = read(descriptor, &count, MemoryLayout<UInt64>.size)
                }
            }
        }
        dispatchMain()
    }
}

/// The two functions libdispatch exports for a run loop that serves the main queue (Foundation's
/// `CFRunLoop` uses them), looked up in the process.
private struct MainQueueHooks {
    /// Returns the main queue's wake-up descriptor (an `eventfd`), creating it on first use.
    let handle: @convention(c) () -> Int32
    /// Runs the jobs queued on the main queue.
    let drain: @convention(c) (UnsafeMutableRawPointer?) -> Void

    init?() {
        guard let handle = dlsym(nil, "_dispatch_get_main_queue_handle_4CF"),
            let drain = dlsym(nil, "_dispatch_main_queue_callback_4CF")
        else { return nil }
        self.handle = unsafeBitCast(handle, to: (@convention(c) () -> Int32).self)
        self.drain = unsafeBitCast(drain, to: (@convention(c) (UnsafeMutableRawPointer?) -> Void).self)
    }
}
#endif
