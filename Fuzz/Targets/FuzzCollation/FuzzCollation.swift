import TesseraFuzzChecks

/// One in-memory database for every input (libFuzzer calls one input at a
/// time, on one thread).
nonisolated(unsafe) let collation: CollationFuzzCheck = {
    do { return try CollationFuzzCheck() } catch { fatalError("cannot open an in-memory database: \(error)") }
}()

/// libFuzzer's entry point: one input, checked by its oracle; a breach
/// stops the run with the problems, and libFuzzer keeps the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
    let problems = collation.problems(&input)
    if !problems.isEmpty { fatalError(problems.joined(separator: "\n")) }
    return 0
}
