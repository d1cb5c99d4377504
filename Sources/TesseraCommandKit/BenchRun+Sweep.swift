import Foundation

extension BenchRun {
    /// Reads a `--sweep` list such as `1k,10k,100k,1M`: whole numbers, or
    /// numbers with `k` (thousands) or `M` (millions), each from 1 to
    /// ``maximumCount``. The sizes come back ascending, each once.
    ///
    /// - Throws: ``CommandError`` naming the bad entry.
    package static func sizes(sweep text: String) throws(CommandError) -> [Int] {
        var sizes: [Int] = []
        for entry in text.split(separator: ",", omittingEmptySubsequences: false) {
            let word = entry.trimmingCharacters(in: .whitespaces)
            func bad(_ reason: String) -> CommandError {
                CommandError("--sweep \(text): \"\(word)\" \(reason)", exitCode: CommandError.usageExitCode)
            }
            var digits = Substring(word), multiplier = 1.0
            if digits.hasSuffix("k") {
                multiplier = 1e3
                digits = digits.dropLast()
            } else if digits.hasSuffix("M") {
                multiplier = 1e6
                digits = digits.dropLast()
            }
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let number = Double(digits) else {
                throw bad("is not a size (a whole number, or one with k for thousands or M for millions, as in 1k,10k,1M)")
            }
            let size = number * multiplier
            guard size == size.rounded(), size >= 1 else { throw bad("is not a whole number of elements, at least 1") }
            guard size <= Double(maximumCount) else { throw bad("is above the most, \(maximumCount)") }
            sizes.append(Int(size))
        }
        return Array(Set(sizes)).sorted()
    }

    /// The growth exponent: the slope of the least-squares line through
    /// (log size, log seconds); `nil` for fewer than two sizes.
    ///
    /// - Complexity: O(*k*) in the number of points.
    package static func exponent(_ points: [(size: Int, seconds: Double)]) -> Double? {
        let distinct = Set(points.map(\.size))
        guard distinct.count >= 2 else { return nil }
        let xs = points.map { log(Double($0.size)) }, ys = points.map { log(max($0.seconds, 1e-12)) }
        let meanX = xs.reduce(0, +) / Double(xs.count), meanY = ys.reduce(0, +) / Double(ys.count)
        var covariance = 0.0, variance = 0.0
        for (x, y) in zip(xs, ys) {
            covariance += (x - meanX) * (y - meanY)
            variance += (x - meanX) * (x - meanX)
        }
        return covariance / variance
    }

    /// A command line as a shell would take it back: words with anything
    /// but letters, digits and `-_./=:,%+@` in single quotes.
    package static func shellLine(_ arguments: [String]) -> String {
        let plain = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,%+@")
        return arguments.map { word in
            if !word.isEmpty, word.allSatisfy({ plain.contains($0) }) { return word }
            return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }.joined(separator: " ")
    }
}
