import TesseraLiveHub
import TesseraLiveProtocol

extension LiveList {
    /// The path a list mounted at `path` is routed under, without its
    /// leading `/`: its non-empty segments, each with the bytes a URL path
    /// segment cannot hold as they are (a space, a non-ASCII letter's
    /// UTF-8) percent-encoded, as a browser sends them; a `%` is kept, so
    /// that a path given already escaped stays as it is.
    ///
    /// - Complexity: O(*n*) in the length of `path`.
    static func routePath(_ path: String) -> String {
        path.split(separator: "/").map { segment in
            var escaped = ""
            for byte in segment.utf8 {
                if isAllowedInSegment(byte) {
                    escaped.unicodeScalars.append(Unicode.Scalar(byte))
                } else {
                    let hex = String(byte, radix: 16, uppercase: true)
                    escaped += "%" + (hex.count == 1 ? "0" + hex : hex)
                }
            }
            return escaped
        }.joined(separator: "/")
    }

    /// Whether a byte stands as it is in a URL path segment (RFC 3986's
    /// `pchar`: unreserved, sub-delims, `:` and `@`), or is the `%` of an
    /// escape.
    private static func isAllowedInSegment(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "-._~!$&'()*+,;=:@%".utf8.contains(byte)
        }
    }
}
