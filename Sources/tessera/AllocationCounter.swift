import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The heap allocation counter of `tessera bench diff`, which lives in a
/// library of its own, `libTesseraAllocationCount.so` beside the
/// executable (the package's `TesseraAllocationCount` product, which
/// `swift build` builds): it defines malloc, calloc, realloc and free, so
/// it is loaded ahead of the C library with `LD_PRELOAD` into the one
/// process that counts, and into no other. The `tessera` executable itself
/// defines no allocator: `tessera serve` and every other subcommand call
/// the C library's malloc directly.
///
/// ``loadIntoThisProcess()`` runs `tessera` again, with the same arguments,
/// with the library preloaded; the new process takes `LD_PRELOAD` back out
/// of its environment at once, so that what it starts does not count.
enum AllocationCounter {
    /// The library's file name.
    static let libraryName = "libTesseraAllocationCount.so"
    /// Set in the environment of the process started with the counter
    /// preloaded: its `LD_PRELOAD` before (empty when it had none).
    static let preloadedMarker = "TESSERA_ALLOCATION_COUNTER_PRELOAD_BEFORE"

    /// The counter's reading function, when the library is loaded.
    static func reader() -> (@Sendable () -> Int64)? {
        guard let symbol = globalSymbol("tessera_allocation_count") else { return nil }
        typealias Count = @convention(c) () -> Int64
        let count = unsafeBitCast(symbol, to: Count.self)
        return { count() }
    }

    /// Whether a sanitizer's runtime is in the process: it supplies the
    /// allocator, and must come first among the libraries loaded, so the
    /// counter stays out.
    static var isSanitized: Bool {
        ["__asan_init", "__tsan_init", "__msan_init"].contains { globalSymbol($0) != nil }
    }

    /// A symbol of the process's global scope: the executable, the
    /// libraries it links and those preloaded.
    private static func globalSymbol(_ name: String) -> UnsafeMutableRawPointer? {
        guard let process = dlopen(nil, RTLD_NOW) else { return nil }
        defer { dlclose(process) }
        return dlsym(process, name)
    }

    /// Puts the environment back as it was before the counter was
    /// preloaded, in the process started with it; nothing elsewhere.
    static func restoreEnvironment() {
        guard let before = getenv(preloadedMarker).map({ String(cString: $0) }) else { return }
        if before.isEmpty { unsetenv("LD_PRELOAD") } else { setenv("LD_PRELOAD", before, 1) }
        unsetenv(preloadedMarker)
    }

    /// Makes the counter count in this process: returns when it is loaded
    /// already, when this build cannot load it (a sanitizer, no library
    /// beside the executable) or when `execv` fails; otherwise it does not
    /// return, the process becoming `tessera` again with the counter.
    static func loadIntoThisProcess() {
        guard reader() == nil, getenv(preloadedMarker) == nil, !isSanitized else { return }
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return }
        let library = (executable as NSString).deletingLastPathComponent + "/" + libraryName
        // The dynamic linker splits LD_PRELOAD at spaces and colons: a
        // library whose path holds one cannot be preloaded.
        guard FileManager.default.isReadableFile(atPath: library), !library.contains(" "), !library.contains(":") else { return }
        let before = getenv("LD_PRELOAD").map { String(cString: $0) } ?? ""
        setenv(preloadedMarker, before, 1)
        setenv("LD_PRELOAD", before.isEmpty ? library : library + ":" + before, 1)
        let arguments = CommandLine.arguments.map { strdup($0) } + [nil]
        execv(executable, arguments)
        // Not replaced: go on without the counter.
        for argument in arguments { free(argument) }
        restoreEnvironment()
    }
}
