// What the process holds: its resident set, from /proc/self/statm, read
// after malloc has returned what it can to the system.

#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The process's resident bytes now, after glibc's `malloc_trim(0)` (found
/// at run time: its header is not in the Glibc module); 0 where there is
/// no /proc.
func residentBytes() -> Int {
    #if canImport(Glibc)
    if let trim = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
        typealias Trim = @convention(c) (Int) -> Int32
        _ = unsafeBitCast(trim, to: Trim.self)(0)
    }
    #endif
    let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
    let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}
