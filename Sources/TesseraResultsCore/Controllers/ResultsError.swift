public import TesseraDiff

/// A request a results controller cannot serve.
///
/// Each case says what failed; ``failure`` sorts them into a few kinds a
/// program can act on, and ``storeError`` gives the store's own error
/// unchanged. Nothing is relabelled on the way up: a store's error stays
/// the store's, a record's decoding error names the record, and a diff's
/// error (records whose ids repeat) stays the diff's.
public enum ResultsError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The section key is not the first sort key, so sections would not be
    /// contiguous.
    case sectionKeyNotFirstSortKey(sectionKey: String, firstSortKey: String?)
    /// Two rows of the result have the same key.
    case duplicateKey(String)
    /// The rows of one section value are not together in the sorted
    /// result: the first sort key orders values that the section key tells
    /// apart as equal (a NOCASE or RTRIM collation on it, for instance).
    case sectionNotContiguous(String)
    /// SQLite refused the query or a row could not be read.
    case database(SQLiteError)
    /// A row could not be made into a record.
    case decoding(key: String, message: String)
    /// A part of the request written in SQL (`part`: the predicate, a sort
    /// key, the section key or the query) could reach past itself into the
    /// statement around it: `problem` says how (a `;` and a second
    /// statement, a parenthesis it did not open, a comment or quote left
    /// open).
    case invalidSQL(part: String, sql: String, problem: String)
    /// The fetch was cancelled before it finished: the task that ran it was
    /// cancelled, or `Connection.interrupt()` (TesseraSQLite) interrupted
    /// it. The controller keeps the result it had.
    case cancelled
    /// The result could not be diffed: two records of it have the same id
    /// (their `id` is not the request's key column). The controller keeps
    /// its last good result.
    case diff(DiffError)
    /// A store other than SQLite failed (SQLite's errors are
    /// ``database(_:)``).
    case store(StoreError)
    /// A lazily fetched result (a request with a
    /// ``FetchRequest/fetchBatchSize``) was asked for a record it had not
    /// read yet, and the store no longer has the row: a result kept from
    /// before a delete, read after it.
    case recordUnavailable(key: String)

    /// A sentence that says what to change.
    public var description: String {
        switch self {
        case let .sectionKeyNotFirstSortKey(sectionKey, first):
            return "the section key \(sectionKey) must be the first sort key (it is \(first ?? "missing")): add SortKey(\"\(sectionKey)\") first"
        case let .sectionNotContiguous(value):
            return "the rows of section \(value) are not together in the sorted result: sort the section key without a collation that merges values, or make the section key the expression it is sorted by"
        case let .duplicateKey(key):
            return "two rows of the result have the key \(key): the key column must be unique"
        case let .database(error):
            return error.description
        case let .decoding(key, message):
            return "the row with key \(key) could not be decoded: \(message)"
        case let .invalidSQL(part, sql, problem):
            return "the \(part) \"\(sql)\" is refused: \(problem)"
        case .cancelled:
            return "the fetch was cancelled before it finished; the controller keeps its previous result"
        case let .diff(error):
            return "the result cannot be diffed: \(error); a record's id must be unique (make it the key column)"
        case let .store(error):
            return error.description
        case let .recordUnavailable(key):
            return "the record with key \(key) was not read while it existed: a lazily fetched result reads records when they are asked for, so keep the records you need from a result before a delete"
        }
    }
}

extension ResultsError {
    /// What failed, in a few kinds a program can act on.
    public enum Failure: String, Hashable, Sendable {
        /// The request itself: its SQL reaches past its part, or its
        /// section key is not its first sort key. Fix the request.
        case request
        /// The result's shape: a section whose rows are not together.
        case fetch
        /// A row could not be made into a record.
        case decode
        /// Two rows have the same key, or two records the same id.
        case duplicateKey
        /// The store failed (SQL it refuses, a damaged file, a lost
        /// connection): ``ResultsError/storeError`` has its error.
        case store
        /// The work was cancelled.
        case cancelled
    }

    /// What failed.
    public var failure: Failure {
        switch self {
        case .sectionKeyNotFirstSortKey, .invalidSQL: return .request
        case .sectionNotContiguous, .recordUnavailable: return .fetch
        case .decoding: return .decode
        case .duplicateKey, .diff: return .duplicateKey
        case .database, .store: return .store
        case .cancelled: return .cancelled
        }
    }

    /// The store's own error, unchanged: an ``SQLiteError``
    /// for SQLite, a ``StoreError``'s underlying error for another store;
    /// `nil` when the store did not fail.
    public var storeError: (any Error & Sendable)? {
        switch self {
        case let .database(error): return error
        case let .store(error): return error.underlying
        default: return nil
        }
    }
}

/// A failure of a store other than SQLite, with the store's own error.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The store (`PostgreSQL`, …).
    public var store: String
    /// The store's code for the failure, when it has one (an SQLSTATE).
    public var code: String?
    /// What failed, in a sentence that names the request or the SQL.
    public var message: String
    /// The store's error, unchanged.
    public var underlying: any Error & Sendable

    /// An error of a store.
    public init(store: String, code: String? = nil, message: String, underlying: any Error & Sendable) {
        self.store = store
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// `PostgreSQL error 42P01: relation "photo" does not exist`.
    public var description: String {
        "\(store) error\(code.map { " \($0)" } ?? ""): \(message)"
    }

    /// Same store, code and message.
    public static func == (lhs: StoreError, rhs: StoreError) -> Bool {
        lhs.store == rhs.store && lhs.code == rhs.code && lhs.message == rhs.message
    }

    /// Hashes the store, code and message.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(store)
        hasher.combine(code)
        hasher.combine(message)
    }
}
