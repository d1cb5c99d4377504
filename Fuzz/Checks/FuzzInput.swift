/// The bytes of one fuzz input, read as the values a check needs.
///
/// Reading past the end gives zeros, so every byte string is a valid input
/// and a longer one only adds detail: what coverage-guided fuzzing needs to
/// grow inputs a byte at a time.
public struct FuzzInput {
    private let bytes: [UInt8]
    private var offset = 0

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    public init(_ data: UnsafeRawBufferPointer) {
        self.init(Array(data))
    }

    /// Whether every byte has been read.
    public var isAtEnd: Bool { offset >= bytes.count }

    /// The next byte, or 0 past the end.
    public mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// A number in `range` from one byte (two when the range is wider than
    /// 256 values).
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        let width = UInt64(range.upperBound - range.lowerBound) + 1
        var raw = UInt64(byte())
        if width > 256 { raw = raw << 8 | UInt64(byte()) }
        return range.lowerBound + Int(raw % width)
    }

    public mutating func bool() -> Bool { byte() & 1 == 1 }

    /// Eight bytes, little-endian.
    public mutating func uint64() -> UInt64 {
        (0..<8).reduce(0) { value, shift in value | UInt64(byte()) << (8 * UInt64(shift)) }
    }

    /// Up to `limit` raw bytes, the count read first.
    public mutating func bytes(upTo limit: Int) -> [UInt8] {
        (0..<int(in: 0...limit)).map { _ in byte() }
    }

    /// A length as a delegate or a property might give it: mostly ordinary
    /// whole and fractional points, sometimes hostile (NaN, infinities,
    /// negative, tiny, huge, the largest finite double).
    public mutating func length() -> Double {
        let code = byte()
        switch code {
        case 0: return .nan
        case 1: return .infinity
        case 2: return -.infinity
        case 3: return -1
        case 4: return 1e300
        case 5: return .greatestFiniteMagnitude
        case 6: return 1e-300
        case 7: return -0.0
        case 8: return 1e7
        case 9...40: return Double(code) / 3
        default: return Double(code - 40)
        }
    }
}
