import TesseraFuzzChecks

/// libFuzzer's entry point: one input, checked by its oracle; a breach
/// stops the run with the problems, and libFuzzer keeps the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
    let problems = BatchFuzzCheck.problems(&input)
    if !problems.isEmpty { fatalError(problems.joined(separator: "\n")) }
    return 0
}
