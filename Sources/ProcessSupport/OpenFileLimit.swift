#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's limit on open files, which bounds its sockets.
///
/// The emulator and its workers keep many connections to each other (one per request in flight,
/// up to ``HTTPExchange/connectionsPerPeer`` per peer) on top of their clients', and the soft
/// limit a shell hands a process is often low: 1,024 on Linux, 256 on macOS. So both raise it to
/// the hard limit when they start, as Go's runtime does for every program.
public enum OpenFileLimit {
    /// Where macOS's documentation caps the soft limit (`OPEN_MAX`); its hard limit is often
    /// unlimited, and the kernel refuses more than `kern.maxfilesperproc`.
    static let darwinMaximum: UInt64 = 10_240

    /// Raises the soft limit on open files to the hard limit (on macOS, to at most 10,240, and
    /// to `kern.maxfilesperproc` when that is lower).
    ///
    /// - Returns: the soft limit in force afterwards, or `nil` when it cannot be read.
    @discardableResult
    public static func raise() -> UInt64? {
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
        guard let limit = read() else { return nil }
        var wanted = limit.rlim_max
        #if canImport(Darwin)
        wanted = min(wanted, rlim_t(darwinMaximum))
        #endif
        guard wanted > limit.rlim_cur else { return UInt64(limit.rlim_cur) }
        if write(soft: wanted, hard: limit.rlim_max) { return UInt64(wanted) }
        #if canImport(Darwin)
        // Above the per-process maximum macOS refuses the whole change: try that maximum.
        var perProcess: Int32 = 0
        var size = MemoryLayout<Int32>.size
        if sysctlbyname("kern.maxfilesperproc", &perProcess, &size, nil, 0) == 0, perProcess > 0,
            rlim_t(perProcess) > limit.rlim_cur, rlim_t(perProcess) < wanted,
            write(soft: rlim_t(perProcess), hard: limit.rlim_max)
        {
            return UInt64(perProcess)
        }
        #endif
        return UInt64(limit.rlim_cur)
        #else
        return nil
        #endif
    }

    /// The current soft and hard limits, or `nil` when they cannot be read.
    public static var current: (soft: UInt64, hard: UInt64)? {
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
        read().map { (UInt64($0.rlim_cur), UInt64($0.rlim_max)) }
        #else
        nil
        #endif
    }

    #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
    #if canImport(Glibc)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resource = RLIMIT_NOFILE
    #endif

    private static func read() -> rlimit? {
        var limit = rlimit()
        return getrlimit(resource, &limit) == 0 ? limit : nil
    }

    private static func write(soft: rlim_t, hard: rlim_t) -> Bool {
        var limit = rlimit(rlim_cur: soft, rlim_max: hard)
        return setrlimit(resource, &limit) == 0
    }
    #endif
}
