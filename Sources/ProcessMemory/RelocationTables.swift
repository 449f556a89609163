#if canImport(Glibc)
import Glibc
#endif

/// Gives back the pages of the relocation tables the dynamic loader read at start-up.
///
/// Before `main` runs, the loader applies each loaded object's relocations, reading its whole
/// relocation table (`DT_RELA`, `DT_RELASZ`) to do so; nothing reads that table again. A Swift
/// server binary's table is large (a worker's holds some 60,000 relocations, 1.4 MB, for the
/// metadata of everything it links), and the libraries' tables add about 2 MB more. Their pages
/// stay mapped and count in the process's resident memory for as long as it runs. ``release()`` tells the kernel it no longer needs
/// them (`madvise(MADV_DONTNEED)`). The tables lie in read-only segments of the files, so
/// their pages were never written: were anything to read them again, they would be read back
/// from the file unchanged. Pages shared with other parts of a segment, and objects with text
/// relocations (whose read-only segments the loader writes to), are left alone. Lazily bound
/// calls read another table (`DT_JMPREL`), which is kept.
public enum RelocationTables {
    /// Releases the relocation tables of every object loaded so far.
    ///
    /// - Returns: the bytes released (0 where this is not Linux with glibc on a 64-bit machine, or
    ///   the loader's `dl_iterate_phdr` cannot be found).
    @discardableResult
    public static func release() -> Int {
        #if canImport(Glibc) && _pointerBitWidth(_64)
        loaded().reduce(0) { released, table in
            let done = madvise(UnsafeMutableRawPointer(bitPattern: table.lowerBound), table.count, MADV_DONTNEED) == 0
            return released + (done ? table.count : 0)
        }
        #else
        0
        #endif
    }

    /// The address ranges of the whole pages of the loaded objects' relocation tables, for
    /// ``release()`` (empty where that does nothing).
    static func loaded() -> [Range<UInt>] {
        #if canImport(Glibc) && _pointerBitWidth(_64)
        typealias Visit = @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeMutableRawPointer?) -> Int32
        typealias Iterate = @convention(c) (Visit, UnsafeMutableRawPointer?) -> Int32
        guard let symbol = dlsym(nil, "dl_iterate_phdr") else { return [] }
        var tables: [Range<UInt>] = []
        // A pointer to the array itself (`&tables` as a raw pointer would be one to its elements).
        withUnsafeMutablePointer(to: &tables) { tables in
            _ = unsafeBitCast(symbol, to: Iterate.self)({ info, _, tables in
                if let info, let tables, let table = LoadedObject(info).relocationTable() {
                    tables.assumingMemoryBound(to: [Range<UInt>].self).pointee.append(table)
                }
                return 0
            }, tables)
        }
        return tables
        #else
        []
        #endif
    }
}

#if canImport(Glibc) && _pointerBitWidth(_64)
/// One object the loader mapped, as `dl_iterate_phdr` describes it (`struct dl_phdr_info`, whose
/// first four fields are the load address, the name, the program headers and their count).
private struct LoadedObject {
    let base: UInt
    let headers: UnsafeBufferPointer<Elf64_Phdr>

    init(_ info: UnsafeMutableRawPointer) {
        let word = MemoryLayout<UInt>.size
        base = info.load(as: UInt.self)
        let headers = info.load(fromByteOffset: 2 * word, as: UnsafePointer<Elf64_Phdr>?.self)
        let count = Int(info.load(fromByteOffset: 3 * word, as: UInt16.self))
        self.headers = UnsafeBufferPointer(start: headers, count: headers == nil ? 0 : count)
    }

    /// The whole pages of the object's relocation table, if it has one it is safe to release.
    func relocationTable() -> Range<UInt>? {
        guard let dynamic = headers.first(where: { $0.p_type == UInt32(PT_DYNAMIC) }),
            let entries = UnsafePointer<Elf64_Dyn>(bitPattern: base &+ UInt(dynamic.p_vaddr))
        else { return nil }
        var table: UInt = 0
        var size: UInt = 0
        var lazyTable: UInt = 0
        var entry = entries
        while entry.pointee.d_tag != DT_NULL {
            switch entry.pointee.d_tag {
            case Int64(DT_RELA): table = UInt(entry.pointee.d_un.d_ptr)
            case Int64(DT_RELASZ): size = UInt(entry.pointee.d_un.d_val)
            case Int64(DT_JMPREL): lazyTable = UInt(entry.pointee.d_un.d_ptr)
            case Int64(DT_TEXTREL): return nil
            case Int64(DT_FLAGS) where entry.pointee.d_un.d_val & UInt64(DF_TEXTREL) != 0: return nil
            default: break
            }
            entry += 1
        }
        guard table != 0, size != 0 else { return nil }
        // glibc stores these addresses relocated on most machines, musl as linked: make both offsets.
        if table >= base { table -= base }
        if lazyTable >= base { lazyTable -= base }
        // Some linkers count the lazily bound calls' table, which follows, in DT_RELASZ.
        if lazyTable > table, lazyTable < table + size { size = lazyTable - table }
        // Only within a segment the loader maps read-only from the file.
        guard
            headers.contains(where: {
                $0.p_type == UInt32(PT_LOAD) && $0.p_flags & UInt32(PF_W) == 0
                    && UInt($0.p_vaddr) <= table && table + size <= UInt($0.p_vaddr + $0.p_filesz)
            })
        else { return nil }
        let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
        let start = (base + table + page - 1) & ~(page - 1)
        let end = (base + table + size) & ~(page - 1)
        return end > start ? start..<end : nil
    }
}
#endif
