/// What the samples of a suite print, kept so the tests can check it.
final class Transcript {
    private(set) var lines: [String] = []

    func append(_ line: String) {
        lines.append(line)
    }
}

/// A suite whose samples print into its transcript: inside the suite,
/// `print` names this method, not the standard library's function, so a
/// sample copied verbatim prints here and the test reads what it printed.
protocol PrintingSamples {
    var transcript: Transcript { get }
}

extension PrintingSamples {
    func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
        transcript.append(items.map { "\($0)" }.joined(separator: separator))
    }
}
