import Foundation
import Testing
import TesseraTestTraits

/// The allocation counter belongs to `tessera bench diff` alone: the
/// executable defines no allocator, and a serving process never loads the
/// counter's library.
@Suite("The allocation counter stays out of tessera serve", .tags(.process), .ownThreads)
struct ServeAllocationCounterTests {
    @Test("tessera serve runs on the C library's malloc: the executable holds no counter, and the serving process maps no counter library and has none preloaded")
    func serveHasNoCounter() throws {
        // An executable that linked the counter would export its malloc
        // (and free) to every library, as the counter's own library does.
        let executable = try Self.definedDynamicSymbols(of: LiveServer.executable)
        #expect(!executable.isEmpty)
        #expect(executable.isDisjoint(with: ["malloc", "calloc", "realloc", "free", "tessera_allocation_count"]), "the tessera executable defines an allocator")
        let library = LiveServer.executable.deletingLastPathComponent().appendingPathComponent("libTesseraAllocationCount.so")
        if FileManager.default.fileExists(atPath: library.path), !Self.isSanitized {
            // The reader sees a definition where there is one.
            #expect(try Self.definedDynamicSymbols(of: library).isSuperset(of: ["malloc", "free", "tessera_allocation_count"]))
        }

        let server = try LiveServer()
        defer { server.stop() }
        let pid = server.process.processIdentifier
        let maps = try String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8)
        #expect(!maps.isEmpty)
        #expect(!maps.contains("libTesseraAllocationCount"), "tessera serve loaded the allocation counter")
        let environment = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))
        #expect(environment.range(of: Data("libTesseraAllocationCount".utf8)) == nil, "tessera serve runs with the counter preloaded")
    }

    @Test("tessera bench diff counts every method's allocations with the counter it preloads into itself from beside the executable")
    func benchCounts() throws {
        let library = LiveServer.executable.deletingLastPathComponent().appendingPathComponent("libTesseraAllocationCount.so")
        try #require(FileManager.default.fileExists(atPath: library.path), "swift build builds the counter beside tessera")
        let process = Process()
        process.executableURL = LiveServer.executable
        process.arguments = ["bench", "diff", "--count", "500", "--runs", "1", "--json"]
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = nil
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = try out.fileHandleForReading.readToEnd(within: 300, "tessera bench diff's output")
        #expect(try process.exit(within: 300).succeeded)
        let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let results = try #require(report["results"] as? [[String: Any]])
        #expect(results.count >= 2)
        for result in results {
            // Sanitized builds do not count; the plain build does, and every
            // method allocates at least once over 500 ids.
            if let allocations = result["allocations"] as? Int {
                #expect(allocations > 0, "\(result)")
            } else {
                #expect(Self.isSanitized, "no allocations counted in a plain build: \(result)")
            }
        }
    }

    /// The names of the symbols an ELF64 little-endian file defines in its
    /// dynamic symbol table (`.dynsym`): those it exports to the libraries
    /// it loads.
    static func definedDynamicSymbols(of file: URL) throws -> Set<String> {
        let data = try Data(contentsOf: file, options: .alwaysMapped)
        func integer<T: FixedWidthInteger>(_ offset: Int, _: T.Type) throws -> T {
            guard offset >= 0, offset + MemoryLayout<T>.size <= data.count else { throw ELFError("\(file.lastPathComponent): offset \(offset) past the end") }
            var value: T = 0
            for index in 0..<MemoryLayout<T>.size { value |= T(data[data.startIndex + offset + index]) << (8 * index) }
            return value
        }
        guard data.count > 64, data.prefix(4) == Data([0x7F, 0x45, 0x4C, 0x46]), data[data.startIndex + 4] == 2, data[data.startIndex + 5] == 1 else {
            throw ELFError("\(file.lastPathComponent) is not a little-endian ELF64 file")
        }
        let sections = Int(try integer(0x28, UInt64.self))
        let sectionSize = Int(try integer(0x3A, UInt16.self))
        let sectionCount = Int(try integer(0x3C, UInt16.self))
        func section(_ index: Int) throws -> (type: UInt32, offset: Int, size: Int, link: Int, entrySize: Int) {
            let base = sections + index * sectionSize
            return (
                try integer(base + 4, UInt32.self), Int(try integer(base + 0x18, UInt64.self)), Int(try integer(base + 0x20, UInt64.self)),
                Int(try integer(base + 0x28, UInt32.self)), Int(try integer(base + 0x38, UInt64.self))
            )
        }
        var names: Set<String> = []
        for index in 0..<sectionCount {
            let symbols = try section(index)
            // SHT_DYNSYM; its names are in the string table it links to.
            guard symbols.type == 11, symbols.entrySize >= 24 else { continue }
            let strings = try section(symbols.link)
            for entry in stride(from: symbols.offset, to: symbols.offset + symbols.size, by: symbols.entrySize) {
                // A defined symbol has a section index (st_shndx) other than 0.
                guard try integer(entry + 6, UInt16.self) != 0 else { continue }
                var start = strings.offset + Int(try integer(entry, UInt32.self))
                var bytes: [UInt8] = []
                while start < strings.offset + strings.size, case let byte = data[data.startIndex + start], byte != 0 {
                    bytes.append(byte)
                    start += 1
                }
                names.insert(String(decoding: bytes, as: UTF8.self))
            }
        }
        return names
    }

    struct ELFError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Whether this test process runs under a sanitizer.
    static var isSanitized: Bool {
        guard let process = dlopen(nil, RTLD_NOW) else { return false }
        defer { dlclose(process) }
        return dlsym(process, "__asan_init") != nil || dlsym(process, "__tsan_init") != nil
    }
}
