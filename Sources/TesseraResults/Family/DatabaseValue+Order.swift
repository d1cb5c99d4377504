import TesseraSQLite

extension DatabaseValue {
    /// Whether a value sorts before another the way SQLite's BINARY
    /// collation orders them (see ``Collation/compare(_:_:)``).
    func sqlitePrecedes(_ other: DatabaseValue) -> Bool {
        Collation.binary.compare(self, other) < 0
    }
}
