import TesseraSQLite

extension DatabaseValue {
    /// Whether a value sorts before another the way SQLite's BINARY
    /// collation orders them: NULL, then numbers (integers and reals
    /// compared by value), then text by bytes, then blobs by bytes.
    func sqlitePrecedes(_ other: DatabaseValue) -> Bool {
        switch (self, other) {
        case let (.integer(a), .integer(b)): return a < b
        case let (.text(a), .text(b)): return a.utf8.lexicographicallyPrecedes(b.utf8)
        case let (.blob(a), .blob(b)): return a.lexicographicallyPrecedes(b)
        default:
            if storageRank != other.storageRank { return storageRank < other.storageRank }
            return (double ?? 0) < (other.double ?? 0)
        }
    }

    private var storageRank: Int {
        switch self {
        case .null: return 0
        case .integer, .real: return 1
        case .text: return 2
        case .blob: return 3
        }
    }
}
