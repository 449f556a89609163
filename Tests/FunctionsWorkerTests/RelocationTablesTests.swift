#if canImport(Glibc)
import Glibc
#endif
@testable import ProcessMemory
import Testing

/// What a worker gives back at start: the pages of the loader's relocation tables.
@Suite("Releasing the loader's relocation tables")
struct RelocationTablesTests {
    #if canImport(Glibc) && _pointerBitWidth(_64)
    /// Whether each page is in the process's page tables (`/proc/self/pagemap`, bit 63).
    static func present(_ pages: Range<UInt>) throws -> [Bool] {
        let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
        let file = open("/proc/self/pagemap", O_RDONLY)
        try #require(file >= 0)
        defer { close(file) }
        return try stride(from: pages.lowerBound, to: pages.upperBound, by: Int(page)).map { address in
            var entry: UInt64 = 0
            let read = pread(file, &entry, 8, off_t(address / page * 8))
            try #require(read == 8)
            return entry >> 63 == 1
        }
    }

    @Test(
        "the tables the loader read are no longer mapped once released",
        .enabled(if: access("/proc/self/pagemap", R_OK) == 0)
    )
    func releasesTheTables() throws {
        let tables = RelocationTables.loaded()
        // The test binary links swift-testing and the worker: its own table spans many pages.
        let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
        #expect(tables.contains { $0.count >= 64 * Int(page) })
        #expect(tables.allSatisfy { $0.lowerBound % page == 0 && $0.upperBound % page == 0 })
        let before = try tables.flatMap(Self.present)

        let released = RelocationTables.release()

        #expect(released == tables.reduce(0) { $0 + $1.count })
        // Of the pages mapped before (memory pressure may have taken some already), none is left
        // but a few a neighbouring fault may map again (the kernel maps up to 64 KB around one).
        let after = try tables.flatMap(Self.present)
        let kept = zip(before, after).filter { $0 && $1 }.count
        #expect(kept <= 32, "\(kept) of \(before.filter { $0 }.count) pages still mapped")
    }
    #else
    @Test("does nothing where it does not apply")
    func doesNothing() {
        #expect(RelocationTables.release() == 0)
    }
    #endif
}
