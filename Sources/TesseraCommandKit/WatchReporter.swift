import Foundation
import Tessera
import TesseraDiff
import TesseraResults
import TesseraSQLite
import TesseraView
import TesseraRender

extension WatchedRow {
    /// The key column of the rows being read, when a record's columns are
    /// the table's own (a PostgreSQL table): the key is found by name
    /// among them. `nil` (SQLite) means the key is the first column.
    @TaskLocal package static var keyColumnName: String?

    /// Reads a row: with ``keyColumnName`` set, its key is that column and
    /// its values are all of its columns; otherwise as ``init(row:)`` reads it.
    init(row: Row, keyColumn: String?) throws {
        guard let keyColumn else {
            id = row[0]
            values = Array(row.values.dropFirst())
            return
        }
        guard let index = row.columnNames.firstIndex(where: { $0.utf8.elementsEqual(keyColumn.utf8) }) else {
            throw CommandError("no column \(keyColumn) among \(row.columnNames.joined(separator: ", "))")
        }
        id = row.values[index]
        values = row.values
    }
}

extension JSON {
    /// A database value as JSON: numbers, text, null, and a blob as a
    /// string of hexadecimal digits.
    package static func value(_ value: DatabaseValue) -> JSON {
        switch value {
        case .null: .null
        case let .integer(integer): .number(String(integer))
        case let .real(real): real.isFinite ? .double(real) : .string("\(real)")
        case let .text(text): .string(text)
        case let .blob(bytes): .string(bytes.map { String(format: "%02x", $0) }.joined())
        }
    }
}

/// How `tessera watch` prints what it follows, whatever the database: the
/// `fetched` line and one report per change, as text or JSON lines.
package struct WatchReporter {
    /// The table, as the output names it.
    var table: String
    /// The database, as the output names it (a path, or a URL without its
    /// password).
    var database: String
    var json: Bool
    /// Adds the rows: all of them to the `fetched` event, and to each
    /// `change` event the rows the changeset places (see ``WatchRun/printRows``).
    var printRows: Bool
    private var source: ResultsDataSource<FetchedResult<WatchedRow>>?
    private var reportNumber = 0

    package init(table: String, database: String, json: Bool, printRows: Bool, layout: LayoutChoice?, result: FetchedResult<WatchedRow>) {
        self.table = table
        self.database = database
        self.json = json
        self.printRows = printRows
        // Each report's changeset is performed as it is, with no second diff.
        if let layout {
            let view = CollectionView(layout: layout.makeLayout(), size: layout.size)
            view.anchorsScrollPosition = false
            source = ResultsDataSource(collectionView: view, result: result)
        }
    }

    /// The first line: what was fetched.
    package func fetched(_ result: FetchedResult<WatchedRow>, notice: String? = nil) -> String {
        let sections = result.numberOfSections, rows = result.count
        if json {
            var members: [(key: String, value: JSON)] = [
                ("event", .string("fetched")), ("database", .string(database)), ("table", .string(table)),
                ("sections", .int(sections)), ("rows", .int(rows)),
            ]
            if let notice { members.append(("notice", .string(notice))) }
            if printRows {
                members.append(("state", .array((0..<sections).map { Self.section($0, of: result) })))
            }
            return JSON.object(members).compactText
        }
        let line = "watching \(table) in \(database): \(sections) section\(sections == 1 ? "" : "s"), \(rows) row\(rows == 1 ? "" : "s") (Ctrl-C to stop)"
        return notice.map { line + "\nnote: " + $0 } ?? line
    }

    /// The lines of one report (numbered from 1); `dataVersion`, when the
    /// database has one, goes into the JSON.
    package mutating func report(_ report: ChangeReport<WatchedRow>, dataVersion: Int64? = nil) throws(CommandError) -> String {
        reportNumber += 1
        var description = ChangeDescription(
            changeset: report.changeset, batch: BatchUpdate(report.changeset, policy: .moveThenReload),
            staged: nil, plan: nil, labels: []
        )
        if let source {
            do {
                let plan = try source.apply(report)
                description.plan = plan
                description.labels = ChangeDescription.labels(for: plan, old: report.oldSnapshot, new: report.newSnapshot)
            } catch {
                throw CommandError("cannot lay out the change to \(table): \(error)")
            }
        }
        let sections = report.new.numberOfSections, rows = report.new.count
        guard json else {
            return "report \(reportNumber): \(sections) section\(sections == 1 ? "" : "s"), \(rows) row\(rows == 1 ? "" : "s")\n" + description.text()
        }
        guard case let .object(members)? = try? description.json() else { throw CommandError("cannot encode report \(reportNumber)") }
        var head: [(key: String, value: JSON)] = [("event", .string("change")), ("report", .int(reportNumber))]
        if let dataVersion { head.append(("dataVersion", .number(String(dataVersion)))) }
        head += [("sections", .int(sections)), ("rows", .int(rows))]
        var tail: [(key: String, value: JSON)] = []
        if printRows {
            let changeset = report.changeset
            let inserted = Set(changeset.sectionInserts)
            tail.append(("insertedSections", .array(changeset.sectionInserts.sorted().map { Self.section($0, of: report.new) })))
            // Every place the changeset fills in a section that was there.
            var paths = changeset.itemInserts + changeset.itemMoves.map(\.to) + changeset.itemUpdates.map(\.to)
            paths = Array(Set(paths.filter { !inserted.contains($0[0]) })).sorted { ($0[0], $0[1]) < ($1[0], $1[1]) }
            tail.append(("placed", .array(paths.map { path in
                .object([("at", .array([.int(path[0]), .int(path[1])]))] + Self.record(report.new[path]))
            })))
        }
        return JSON.object(head + members + tail).compactText
    }

    /// A section and its rows: `{"index", "section", "items": [{"id", "values"}]}`.
    private static func section(_ index: Int, of result: FetchedResult<WatchedRow>) -> JSON {
        let count = result.numberOfRecords(inSection: index)
        return .object([
            ("index", .int(index)), ("section", .value(result.sections[index].value)),
            ("items", .array((0..<count).map { .object(record(result[IndexPath(item: $0, section: index)])) })),
        ])
    }

    private static func record(_ row: WatchedRow) -> [(key: String, value: JSON)] {
        [("id", .value(row.id)), ("values", .array(row.values.map(JSON.value)))]
    }
}
