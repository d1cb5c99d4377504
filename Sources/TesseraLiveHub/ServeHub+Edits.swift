import TesseraDiff
import TesseraLiveProtocol
import TesseraResults
import TesseraSQLite

extension ServeHub {
    /// Runs an edit: checks it against the list as of now (other
    /// connections' commits are taken first), writes it in one
    /// bound-parameter transaction, sends the change to every client (not
    /// animated for the editor's own move or rename), then `done` to the
    /// editor. Any refusal or failure is an `error` with nothing written.
    ///
    /// Over a ``backend``, the transaction runs off the actor, which takes
    /// other messages meanwhile; `done` still follows the edit's plan (see
    /// ``ServeBackend``).
    package func perform(_ message: ServeMessage, from session: ServeSession) async {
        guard let request = message.request else { return }
        func refuse(_ error: ServeMessageError) {
            countEdit(done: false, session: session, error: error)
            reply(to: session, Self.errorMessage(error))
        }
        guard session.isReady else {
            refuse(ServeMessageError(.notReady, "send hello before edits", request: request))
            return
        }
        guard session.canEdit else {
            refuse(ServeMessageError(.forbidden, "this connection may not edit (the server asks for its token)", request: request))
            return
        }
        if let (edit, name) = ServeEdits.of(message), !configuration.allowedEdits.contains(edit) {
            refuse(ServeMessageError(.readOnly, "\(name): this list does not allow it", request: request))
            return
        }
        if let backend {
            await perform(message, request: request, from: session, through: backend)
            return
        }
        pollNow()
        let animatedForEditor: Bool
        do throws(ServeMessageError) {
            switch message {
            case let .move(_, id, to):
                try move(id, to: to, request: request)
                animatedForEditor = false
            case let .rename(_, id, title):
                try rename(id, to: title, request: request)
                animatedForEditor = false
            case let .delete(_, ids):
                try delete(ids, request: request)
                animatedForEditor = true
            case let .add(_, section, title):
                try add(title, toSection: section, request: request)
                animatedForEditor = true
            case .hello, .viewport:
                return
            }
        } catch {
            // A failed write was rolled back and reported nothing; anything
            // the controller did report is a real change, sent as usual.
            broadcastReports(editor: nil)
            refuse(error)
            return
        }
        countEdit(done: true, session: session)
        broadcastReports(editor: (session.id, animatedForEditor))
        sendDone(request: request, to: session)
    }

    /// `done` for an edit, after its plan: held, after the plan that
    /// catches it up, for a client that is behind.
    private func sendDone(request: Int64, to session: ServeSession) {
        let done = Self.doneMessage(request: request, seq: seq)
        if session.isBehind {
            session.heldReplies.append(done)
        } else {
            reply(to: session, done)
        }
    }

    /// ``perform(_:from:)`` over a backend: the hub checks what it can
    /// against the list as it shows it (a move on a list that cannot be
    /// reordered, a section that does not exist), the backend writes the
    /// edit in one transaction and returns once the controller can take
    /// its commit, and the change goes to every client before `done`.
    private func perform(_ message: ServeMessage, request: Int64, from session: ServeSession, through backend: any ServeBackend) async {
        let edit: ServeEdit
        let animatedForEditor: Bool
        do throws(ServeMessageError) {
            switch message {
            case let .move(_, id, to):
                if let refusal = moveRefusal(request: request) { throw refusal }
                edit = .move(id: id, to: to)
                animatedForEditor = false
            case let .rename(_, id, title):
                edit = .rename(id: id, title: title)
                animatedForEditor = false
            case let .delete(_, ids):
                edit = .delete(ids: ids)
                animatedForEditor = true
            case let .add(_, section, title):
                edit = .add(title: title, section: try sectionValue(section, request: request))
                animatedForEditor = true
            case .hello, .viewport:
                return
            }
            // What others committed first goes out first (the editor's
            // own change then comes alone, not animated for it).
            pollNow()
            let commit = try await backend.write(edit, request: request)
            var followed = await commit.waitUntilHandedOver()
            // Again on the actor, with no suspension before the changes are
            // taken: a fetch of the controller's since (on this actor) may
            // have taken the commit back to hand it over again.
            for _ in 0..<3 where followed && !commit.isHandedOver() {
                followed = await commit.waitUntilHandedOver()
            }
            if !followed || !commit.isHandedOver() {
                logger.warning("an edit committed, but its change was not followed in time; its plan comes with a later change", metadata: ["request": "\(request)"])
            }
        } catch {
            // Nothing was written; what others committed meanwhile is sent.
            pollNow()
            countEdit(done: false, session: session, error: error)
            // The editor may have left (or the hub stopped) meanwhile.
            if sessions[session.id] === session { reply(to: session, Self.errorMessage(error)) }
            return
        }
        countEdit(done: true, session: session)
        readingRecords { pollBound(editor: (session.id, animatedForEditor)) }
        if sessions[session.id] === session { sendDone(request: request, to: session) }
    }

    /// Why a move cannot run on this list, or `nil` when it can.
    private func moveRefusal(request: Int64) -> ServeMessageError? {
        guard !schema.canReorder else { return nil }
        let why = schema.orderColumn == nil
            ? "the list has no order column"
            : "the list is sorted by \(schema.sortColumn), not by its order column \(schema.orderColumn ?? "")"
        return ServeMessageError(.readOnly, "move: \(why)", request: request)
    }

    /// The stored value of the section named `section`, as the list shows
    /// it, or `nil` without a section column.
    ///
    /// - Throws: `notFound` when the list has no such section.
    /// - Complexity: O(*s*) for *s* sections.
    private func sectionValue(_ section: String, request: Int64) throws(ServeMessageError) -> DatabaseValue? {
        guard schema.sectionColumn != nil else { return nil }
        guard let match = controller.result.sections.first(where: { schema.sectionName($0.value) == section }) else {
            throw ServeMessageError(.notFound, "no section \(Self.shown(section))", request: request)
        }
        return match.value
    }

    /// The stored row whose id is `id`: its key and its section's value
    /// (`.null` without a section column), read by the key in the edit's
    /// transaction, or `nil` when no row has that id.
    ///
    /// An id is a key as text (``ServeSchema/text(of:)``), so the id is
    /// tried as the text, the integer or the real it spells, and a row
    /// counts only when its key spells the id exactly. When several rows do
    /// (a key column without a type holding both `1` and `'1'`), the one
    /// first in the list's order is meant, as the list shows them.
    ///
    /// - Complexity: O(log *n*) through the table's key, for *n* rows
    ///   (O(*n*) for an id that several rows spell).
    private func storedRow(_ id: String, in db: Database) throws -> (key: DatabaseValue, section: DatabaseValue)? {
        var candidates: [DatabaseValue] = [.text(id)]
        if let integer = Int64(id) {
            candidates.append(.integer(integer))
        } else if let real = Double(id), real.isFinite {
            candidates.append(.real(real))
        }
        let key = ServeSchema.quoted(schema.keyColumn)
        let section = schema.sectionColumn.map(ServeSchema.quoted) ?? "NULL"
        let placeholders = Array(repeating: "?", count: candidates.count).joined(separator: ", ")
        let rows = try db.rows(
            "SELECT \(key), \(section) FROM \(ServeSchema.quoted(schema.table)) WHERE \(key) IN (\(placeholders))", candidates
        ).filter { ServeSchema.text(of: $0[0]) == id }
        guard rows.count > 1 else { return rows.first.map { ($0[0], $0[1]) } }
        guard let path = controller.result.indexPath(ofRecordWithID: id) else { return (rows[0][0], rows[0][1]) }
        guard let shown = try? controller.result.record(at: path).key else { return (rows[0][0], rows[0][1]) }
        return rows.first { $0[0] == shown }.map { ($0[0], $0[1]) } ?? (rows[0][0], rows[0][1])
    }

    /// The refusal of an edit whose item is not in the table.
    private static func notFound(_ id: String, request: Int64) -> ServeMessageError {
        ServeMessageError(.notFound, "no item with id \(shown(id)) (it may have been deleted)", request: request)
    }

    /// Runs `body` in a write transaction: rolled back when it throws.
    private func write(request: Int64, _ body: (Database) throws -> Void) throws(ServeMessageError) {
        // The commit's report is made before the write returns: its rows
        // are read here.
        let outcome: Result<Void, any Error> = readingRecords {
            Result {
                guard let connection else { throw ServeMessageError(.database, "no SQLite connection to write", request: request) }
                try connection.write { db in try body(db) }
            }
        }
        do {
            try outcome.get()
        } catch let error as ServeMessageError {
            throw error
        } catch let error as SQLiteError {
            throw ServeMessageError(.database, "the write failed, nothing was written: \(error.message)", request: request)
        } catch {
            throw ServeMessageError(.database, "the write failed, nothing was written: \(error)", request: request)
        }
    }

    private func move(_ id: String, to index: Int, request: Int64) throws(ServeMessageError) {
        if let refusal = moveRefusal(request: request) { throw refusal }
        guard let orderColumn = schema.orderColumn else { return }
        let table = ServeSchema.quoted(schema.table)
        let key = ServeSchema.quoted(schema.keyColumn)
        let order = ServeSchema.quoted(orderColumn)
        let direction = schema.sortDescending ? "DESC" : "ASC"
        let condition = schema.sectionColumn.map { " WHERE \(ServeSchema.quoted($0)) IS ?" } ?? ""
        let descending = schema.sortDescending
        try write(request: request) { db in
            guard let row = try storedRow(id, in: db) else { throw Self.notFound(id, request: request) }
            // The section's rows in the list's order, as the transaction sees them.
            let rows = try db.rows(
                "SELECT \(key), \(order) FROM \(table)\(condition) ORDER BY \(order) \(direction), \(key) ASC",
                schema.sectionColumn == nil ? [] : [row.section]
            )
            var keys = rows.map { $0[0] }
            guard let from = keys.firstIndex(of: row.key) else { throw Self.notFound(id, request: request) }
            guard index < keys.count else {
                throw ServeMessageError(.outOfRange, "\"to\" \(index) is out of range: the item's section has \(keys.count) items (0 to \(keys.count - 1))", request: request)
            }
            let old = Dictionary(rows.map { ($0[0], $0[1]) }, uniquingKeysWith: { first, _ in first })
            keys.remove(at: from)
            keys.insert(row.key, at: index)
            for (position, rowKey) in keys.enumerated() {
                let value = DatabaseValue.integer(Int64(descending ? keys.count - 1 - position : position))
                guard old[rowKey] != value else { continue }
                try db.execute("UPDATE \(table) SET \(order) = ? WHERE \(key) = ?", [value, rowKey])
            }
        }
    }

    private func rename(_ id: String, to title: String, request: Int64) throws(ServeMessageError) {
        let table = ServeSchema.quoted(schema.table)
        let key = ServeSchema.quoted(schema.keyColumn)
        let titleColumn = ServeSchema.quoted(schema.titleColumn)
        try write(request: request) { db in
            guard let row = try storedRow(id, in: db) else { throw Self.notFound(id, request: request) }
            try db.execute("UPDATE \(table) SET \(titleColumn) = ? WHERE \(key) = ?", [.text(title), row.key])
        }
    }

    /// Deletes the rows of `ids` in one transaction, or none: when an id
    /// has no row, the error names every such id.
    ///
    /// - Complexity: O(*k* log *n*) to find and delete *k* ids among *n*
    ///   rows.
    private func delete(_ ids: [String], request: Int64) throws(ServeMessageError) {
        // By bytes: ids spelt two ways that Swift's `==` takes as one are
        // two rows.
        var seen = Set<DatabaseValue>()
        var unique: [String] = []
        for id in ids where seen.insert(.text(id)).inserted { unique.append(id) }
        let table = ServeSchema.quoted(schema.table)
        let key = ServeSchema.quoted(schema.keyColumn)
        try write(request: request) { db in
            var keys: [DatabaseValue] = []
            var missing: [String] = []
            for id in unique {
                if let row = try storedRow(id, in: db) { keys.append(row.key) } else { missing.append(id) }
            }
            if let first = missing.first {
                var error = Self.notFound(first, request: request)
                error.missingIDs = missing
                throw error
            }
            for rowKey in keys {
                try db.execute("DELETE FROM \(table) WHERE \(key) = ?", [rowKey])
            }
        }
    }

    private func add(_ title: String, toSection section: String, request: Int64) throws(ServeMessageError) {
        let sectionValue = try sectionValue(section, request: request)
        let table = ServeSchema.quoted(schema.table)
        var columns = [ServeSchema.quoted(schema.titleColumn)]
        var values = ["?"]
        var arguments: [DatabaseValue] = [.text(title)]
        var condition = ""
        if let sectionColumn = schema.sectionColumn, let sectionValue {
            columns.append(ServeSchema.quoted(sectionColumn))
            values.append("?")
            arguments.append(sectionValue)
            condition = " WHERE \(ServeSchema.quoted(sectionColumn)) IS ?"
        }
        if let orderColumn = schema.orderColumn {
            let order = ServeSchema.quoted(orderColumn)
            columns.append(order)
            // At the end of the section in the list's order.
            let end = schema.sortDescending ? "min(\(order)) - 1" : "max(\(order)) + 1"
            values.append("(SELECT coalesce(\(end), 0) FROM \(table)\(condition))")
            if let sectionValue { arguments.append(sectionValue) }
        }
        let sql = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))"
        try write(request: request) { db in try db.execute(sql, arguments) }
    }

    /// An id or section name for a message, shortened.
    package static func shown(_ text: String) -> String {
        "\"" + (text.count > 40 ? String(text.prefix(40)) + "…" : text) + "\""
    }
}
