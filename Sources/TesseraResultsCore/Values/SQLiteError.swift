/// An error from SQLite, or from Tessera's use of it, with SQLite's code,
/// its message and the SQL that failed.
public struct SQLiteError: Error, Hashable, Sendable, CustomStringConvertible {
    /// SQLite's primary result code (`SQLITE_ERROR` = 1, `SQLITE_BUSY` = 5,
    /// `SQLITE_CONSTRAINT` = 19, …).
    public var code: Int32
    /// SQLite's extended result code, when it gave one.
    public var extendedCode: Int32
    /// SQLite's message.
    public var message: String
    /// The SQL that failed, when there was one.
    public var sql: String?

    /// Creates an error.
    public init(code: Int32, extendedCode: Int32? = nil, message: String, sql: String? = nil) {
        self.code = code
        self.extendedCode = extendedCode ?? code
        self.message = message
        self.sql = sql
    }

    /// Whether the statement was interrupted (`SQLITE_INTERRUPT`, message
    /// "interrupted") by ``Connection/interrupt()`` or a condition of
    /// ``Database/interrupting(when:_:)``, rather than failing.
    public var isInterrupted: Bool { code == 9 /* SQLITE_INTERRUPT */ }

    /// `SQLite error 1: no such table: photo (in "SELECT * FROM photo")`.
    public var description: String {
        var text = "SQLite error \(code)"
        if extendedCode != code { text += " (extended \(extendedCode))" }
        text += ": \(message)"
        if let sql { text += " (in \"\(sql)\")" }
        return text
    }
}
