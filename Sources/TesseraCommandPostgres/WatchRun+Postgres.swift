import Foundation
import TesseraCommandKit
import TesseraPostgres
import TesseraResults
import TesseraResultsCore
import TesseraSQLite

/// `tessera watch postgres://…`: the same command over a PostgreSQL table.
/// Only the `tessera` executable links this module: it sets
/// ``TesseraCommandKit/WatchRun/followPostgres`` to ``WatchRun/postgresFollower``.
extension WatchRun {
    /// Follows a PostgreSQL URL for ``TesseraCommandKit/WatchRun/run(print:shouldStop:)``.
    package static let postgresFollower: PostgresFollower = { run, print, shouldStop throws(CommandError) in
        try run.runPostgres(print: print, shouldStop: shouldStop)
    }

    /// Follows the PostgreSQL table until `shouldStop` returns true (see
    /// ``run(print:shouldStop:)``); the store is closed on the way out.
    package func runPostgres(print: (String) -> Void, shouldStop: () -> Bool) throws(CommandError) {
        try layout?.validate()
        try checkInterval()
        if predicate == nil, !arguments.isEmpty {
            throw CommandError("--arg: \(arguments.count) value\(arguments.count == 1 ? "" : "s") but no --where with ? placeholders to bind \(arguments.count == 1 ? "it" : "them") to", exitCode: CommandError.usageExitCode)
        }
        let store: PostgresStore
        do {
            store = try PostgresStore(url: databasePath, applicationName: Self.postgresApplicationName)
        } catch {
            throw postgresError(error)
        }
        defer { store.close() }
        // The store's thread asks the server for commits twice per poll.
        store.pollInterval = interval / 2
        let (request, key) = try postgresRequest(store)
        do {
            try WatchedRow.$keyColumnName.withValue(key) {
                try followPostgres(store, request, print: print, shouldStop: shouldStop)
            }
        } catch let error as CommandError {
            throw error
        } catch {
            throw CommandError("\(Self.urlWithoutPassword(databasePath)): \(scrubbed("\(error)"))", exitCode: CommandError.databaseExitCode)
        }
    }

    private func followPostgres(_ store: PostgresStore, _ request: FetchRequest, print: (String) -> Void, shouldStop: () -> Bool) throws(CommandError) {
        let controller: FetchedResultsController<WatchedRow>
        do {
            controller = try FetchedResultsController<WatchedRow>(store: store, request: request)
            try controller.performFetch()
        } catch {
            if shouldStop() { return }
            throw postgresError(error)
        }
        let collector = ReportCollector<WatchedRow>()
        controller.delegate = collector
        var reporter = WatchReporter(
            table: table, database: Self.urlWithoutPassword(databasePath), json: json, printRows: printRows,
            layout: layout, result: controller.result
        )
        print(reporter.fetched(controller.result))
        while !shouldStop() {
            usleep(useconds_t(interval * 1_000_000))
            collector.reports.removeAll()
            let took: Bool
            do {
                // The commits the store's feed read since the last poll.
                took = try controller.checkForExternalChanges()
            } catch {
                if shouldStop() { return }
                throw postgresError(error)
            }
            if let failure = collector.failures.first { throw postgresError(failure) }
            guard took else { continue }
            for report in collector.reports { print(try reporter.report(report)) }
        }
    }

    /// Checks the table, the columns and the server, and makes the request
    /// and the key column's name.
    private func postgresRequest(_ store: PostgresStore) throws(CommandError) -> (FetchRequest, String) {
        let shown = Self.urlWithoutPassword(databasePath)
        let names: [String]
        let columns: [String]
        do {
            let level = try store.walLevel()
            guard level == "logical" else {
                throw CommandError(
                    "\(shown): cannot follow commits: the server's wal_level is \(level), and watch needs logical: set wal_level = logical in postgresql.conf and restart the server",
                    exitCode: CommandError.databaseExitCode
                )
            }
            names = try store.relationNames()
            guard let match = postgresName(matching: table, in: names) else {
                throw CommandError("no such table: \(table) in \(shown) (it has: \(names.isEmpty ? "no tables" : names.joined(separator: ", ")))", exitCode: CommandError.databaseExitCode)
            }
            guard let found = try store.columnNames(ofRelation: match) else {
                throw CommandError("no such table: \(table) in \(shown) (it has: \(names.joined(separator: ", ")))", exitCode: CommandError.databaseExitCode)
            }
            columns = found
            return try makePostgresRequest(table: match, columns: columns)
        } catch let error as CommandError {
            throw error
        } catch let error as PostgresStoreError {
            throw postgresError(error)
        } catch {
            throw CommandError("\(shown): \(scrubbed("\(error)"))", exitCode: CommandError.databaseExitCode)
        }
    }

    private func makePostgresRequest(table: String, columns: [String]) throws(CommandError) -> (FetchRequest, String) {
        func column(_ name: String, _ option: String) throws(CommandError) -> String {
            if let match = postgresName(matching: name, in: columns) { return match }
            let hint = option == "--key" && Self.rowIDNames.contains(name.lowercased()) ? "; PostgreSQL tables have no row id: --key names a unique column" : ""
            throw CommandError("\(option): no such column: \(name) in table \(table) (its columns: \(columns.joined(separator: ", "))\(hint))", exitCode: CommandError.databaseExitCode)
        }
        let key = try column(keyColumn, "--key")
        var keys: [SortKey] = []
        for spec in sortKeys {
            let (name, ascending) = try Self.sortSpec(spec)
            keys.append(SortKey(Self.quoted(try column(name, "--sort")), ascending: ascending))
        }
        var sectionKey: String?
        if let section {
            let name = Self.quoted(try column(section, "--section"))
            sectionKey = name
            if keys.first?.expression != name { keys.insert(SortKey(name), at: 0) }
        }
        // Each value goes as text, and the server gives it the type its
        // place in the condition asks for.
        let values: [DatabaseValue] = arguments.map { .text($0) }
        let request = FetchRequest(table: table, keyColumn: key, predicate: predicate, arguments: values, sortKeys: keys, sectionKey: sectionKey)
        return (request, key)
    }

    private static func quoted(_ identifier: String) -> String {
        quotedIdentifier(identifier)
    }

    /// A controller's error as one line naming the URL (never the password).
    private func postgresError(_ error: ResultsError) -> CommandError {
        if case let .invalidSQL(part, sql, problem) = error, part == "predicate" {
            return CommandError("--where \"\(sql)\" is refused: \(scrubbed(problem))", exitCode: CommandError.usageExitCode)
        }
        if case let .store(storeError) = error, let underlying = storeError.underlying as? PostgresStoreError {
            if let predicate, underlying.kind == .badSQL || underlying.kind == .unknownColumn || underlying.kind == .unknownTable {
                let status = underlying.kind == .badSQL ? CommandError.usageExitCode : CommandError.databaseExitCode
                return CommandError("--where \"\(predicate)\": \(scrubbed(underlying.message))\(underlying.code.map { " (\($0))" } ?? "")", exitCode: status)
            }
            return postgresError(underlying)
        }
        return CommandError("\(Self.urlWithoutPassword(databasePath)): \(scrubbed("\(error)"))", exitCode: CommandError.databaseExitCode)
    }

    /// A store's error as one line naming the URL (never the password).
    private func postgresError(_ error: PostgresStoreError) -> CommandError {
        let shown = Self.urlWithoutPassword(databasePath)
        let cause = scrubbed(error.message) + (error.code.map { " (\($0))" } ?? "")
        switch error.kind {
        case .invalidURL:
            return CommandError("\(shown): not a PostgreSQL URL watch can use: \(cause) (expected postgres://user[:password]@host[:port]/database)", exitCode: CommandError.usageExitCode)
        case .connection:
            return CommandError("\(shown): cannot connect: \(cause)", exitCode: CommandError.databaseExitCode)
        case .authentication:
            return CommandError("\(shown): the server refused the login: \(cause)", exitCode: CommandError.databaseExitCode)
        case .cannotFollow:
            return CommandError("\(shown): cannot follow commits: \(cause)", exitCode: CommandError.databaseExitCode)
        case .serverGone:
            return CommandError("\(shown): the connection ended: \(cause)", exitCode: CommandError.databaseExitCode)
        case .unknownTable, .unknownColumn, .badSQL, .server:
            return CommandError("\(shown): cannot \(scrubbed(error.request)): \(cause)", exitCode: CommandError.databaseExitCode)
        }
    }
}
