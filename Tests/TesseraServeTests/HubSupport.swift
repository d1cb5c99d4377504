import Foundation
import Testing
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
@testable import TesseraServe
import TesseraDiff
import TesseraLayout
import TesseraRender
import TesseraSQLite
import TesseraView

/// A new SQLite file (WAL) in the temporary directory, its name starting
/// with `prefix`, set up by `setUp` in one transaction, and a connection to
/// it; the caller removes it with ``removeDatabaseFiles(at:)`` (this does
/// when `setUp` throws).
func makeScratchDatabase(_ prefix: String, _ setUp: (Database) throws -> Void) throws -> (path: String, writer: Connection) {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString).sqlite").path
    do {
        let writer = try Connection(path: path)
        try writer.write(setUp)
        return (path, writer)
    } catch {
        removeDatabaseFiles(at: path)
        throw error
    }
}

/// Removes an SQLite file with its write-ahead log and shared memory.
func removeDatabaseFiles(at path: String) {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
}

/// A photo table in a temporary SQLite file (WAL), with a second connection
/// that writes as another process would.
final class HubLibrary {
    let path: String
    let writer: Connection
    static let albums = ["Alps", "Berlin", "Cairo", "Dakar", "Lisbon", "Oslo", "Porto", "Quito"]

    init(photos: Int, albums: Int = 4, orderColumn: Bool = true) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-hub-\(UUID().uuidString).sqlite").path
        writer = try Connection(path: path)
        try writer.withDatabase { db in
            try db.execute("""
                CREATE TABLE photo (id INTEGER PRIMARY KEY, album TEXT NOT NULL, title TEXT NOT NULL CHECK (title <> 'forbidden'),
                                    position INTEGER NOT NULL DEFAULT 0, taken INTEGER NOT NULL DEFAULT 0)
                """)
        }
        try writer.write { db in
            for i in 0..<photos {
                let album = Self.albums[i % albums]
                try db.execute("INSERT INTO photo (album, title, position, taken) VALUES (?, ?, ?, ?)",
                               [.text(album), .text("Photo \(i)"), .integer(Int64(i / albums)), .integer(Int64(1000 - i))])
            }
        }
    }

    deinit {
        removeDatabaseFiles(at: path)
    }

    func configuration(capacity: Int = 1_000, order: Bool = true) -> ServeConfiguration {
        ServeConfiguration(
            databasePath: path, table: "photo", sectionColumn: "album", sortColumn: "position",
            titleColumn: "title", orderColumn: order ? "position" : nil, outboxCapacity: capacity
        )
    }

    /// The list as a fresh query gives it: the ids of each album in order.
    func freshList() throws -> [HubReplica.Section] {
        let rows = try writer.withDatabase { db in try db.rows(HubReplica.freshListQuery) }
        return HubReplica.sections(rows.map { (album: $0[0].string ?? "", id: String($0[1].int64 ?? -1)) })
    }

    /// Every row, for comparing the database before and after.
    func dump() throws -> String {
        try writer.withDatabase { db in try db.rows("SELECT * FROM photo ORDER BY id") }.map { "\($0)" }.joined(separator: "\n")
    }
}

/// A client's copy of the list, kept by replaying every plan's changeset.
struct HubReplica: Equatable, CustomStringConvertible {
    struct Section: Equatable {
        var id: String
        var ids: [String]
    }

    var sections: [Section] = []

    /// The photo table's list as a fresh query gives it: album and id, in
    /// the list's order.
    static let freshListQuery = "SELECT album, id FROM photo ORDER BY album, position, id"

    /// The sections of rows of ``freshListQuery``.
    static func sections(_ rows: [(album: String, id: String)]) -> [Section] {
        var sections: [Section] = []
        for row in rows {
            if sections.last?.id != row.album { sections.append(Section(id: row.album, ids: [])) }
            sections[sections.count - 1].ids.append(row.id)
        }
        return sections
    }

    var description: String { sections.map { "\($0.id): \($0.ids.joined(separator: ","))" }.joined(separator: " | ") }

    struct ReplayFailure: Error, CustomStringConvertible {
        var description: String
    }

    static func ints(_ json: JSON?) -> [Int] {
        guard case let .array(values)? = json else { return [] }
        return values.compactMap { if case let .number(text) = $0 { Int(text) } else { nil } }
    }

    static func path(_ json: JSON?) -> (Int, Int)? {
        let parts = ints(json)
        return parts.count == 2 ? (parts[0], parts[1]) : nil
    }

    static func strings(_ json: JSON?) -> [String] {
        guard case let .array(values)? = json else { return [] }
        return values.compactMap { if case let .string(text) = $0 { text } else { nil } }
    }

    static func array(_ json: JSON?) -> [JSON] {
        if case let .array(values)? = json { return values }
        return []
    }

    /// Replays a changeset as UIKit applies a batch: deletes and moves'
    /// sources at old positions, inserts and moves' destinations at new
    /// ones, the survivors filling the rest in order.
    mutating func apply(_ changeset: JSON) throws {
        let old = sections
        let sectionDeletes = Set(Self.ints(changeset["sectionDeletes"]))
        var sectionInserts: [Int: Section] = [:]
        for insert in Self.array(changeset["sectionInserts"]) {
            guard case let .number(index)? = insert["index"], let at = Int(index), case let .string(id)? = insert["id"] else {
                throw ReplayFailure(description: "bad section insert \(insert.compactText)")
            }
            sectionInserts[at] = Section(id: id, ids: Self.strings(insert["ids"]))
        }
        var sectionMoves: [Int: Int] = [:]   // to → from
        var movedFrom = Set<Int>()
        for move in Self.array(changeset["sectionMoves"]) {
            let pair = Self.ints(move)
            guard pair.count == 2 else { throw ReplayFailure(description: "bad section move") }
            sectionMoves[pair[1]] = pair[0]
            movedFrom.insert(pair[0])
        }
        let count = old.count - sectionDeletes.count + sectionInserts.count
        var survivors = (0..<old.count).filter { !sectionDeletes.contains($0) && !movedFrom.contains($0) }.makeIterator()
        var origins: [Int?] = []   // old index, or nil for inserted
        for index in 0..<count {
            if sectionInserts[index] != nil { origins.append(nil) }
            else if let from = sectionMoves[index] { origins.append(from) }
            else if let next = survivors.next() { origins.append(next) }
            else { throw ReplayFailure(description: "sections do not add up at \(index)") }
        }
        guard survivors.next() == nil else { throw ReplayFailure(description: "sections left over") }
        // Items.
        var removed: [Int: Set<Int>] = [:]
        for path in Self.array(changeset["itemDeletes"]).compactMap({ Self.path($0) }) { removed[path.0, default: []].insert(path.1) }
        var fixed: [Int: [Int: String]] = [:]
        for insert in Self.array(changeset["itemInserts"]) {
            guard let at = Self.path(insert["at"]), case let .string(id)? = insert["id"] else { throw ReplayFailure(description: "bad item insert") }
            fixed[at.0, default: [:]][at.1] = id
        }
        for move in Self.array(changeset["itemMoves"]) {
            guard let from = Self.path(move["from"]), let to = Self.path(move["to"]),
                  old.indices.contains(from.0), old[from.0].ids.indices.contains(from.1) else {
                throw ReplayFailure(description: "bad item move \(move.compactText)")
            }
            removed[from.0, default: []].insert(from.1)
            fixed[to.0, default: [:]][to.1] = old[from.0].ids[from.1]
        }
        var result: [Section] = []
        for (index, origin) in origins.enumerated() {
            guard let origin else {
                result.append(sectionInserts[index]!)
                continue
            }
            let gone = removed[origin] ?? []
            var rest = old[origin].ids.enumerated().filter { !gone.contains($0.offset) }.map(\.element).makeIterator()
            let placed = fixed[index] ?? [:]
            let total = old[origin].ids.count - gone.count + placed.count
            var ids: [String] = []
            for position in 0..<total {
                if let id = placed[position] { ids.append(id) }
                else if let id = rest.next() { ids.append(id) }
                else { throw ReplayFailure(description: "items of section \(index) do not add up") }
            }
            guard rest.next() == nil, placed.keys.allSatisfy({ $0 < total }) else {
                throw ReplayFailure(description: "items of section \(index) left over")
            }
            result.append(Section(id: old[origin].id, ids: ids))
        }
        sections = result
    }
}

/// A client of the hub in the tests: reads its outbox, checks the order of
/// the messages and keeps a replica.
final class HubTestClient {
    let id: ServeClientID
    let outbox: ClientOutbox
    let label: String
    var layout: ServeLayoutKind
    var viewport: Rect
    var seq = -1
    var replica = HubReplica()
    /// The last element set (a snapshot's, an `elements`' or a plan's
    /// `settled`) and the viewport it is for.
    var elements: [JSON] = []
    var elementsViewport = Rect.zero
    var errors: [JSON] = []
    var dones: [JSON] = []
    var plans = 0
    /// The `state` of the last snapshot or plan (the list it shows).
    var state: String?
    /// The plans that answered a `hello` naming its state.
    var resumedPlans = 0
    /// How often, in ten steps, the client reads its outbox (oracle).
    var readsInTen = 10
    /// The hub it is connected to, in tests with several.
    var hub = 0
    /// Ids that must never appear (rows of rolled-back transactions).
    var forbiddenIDs: Set<String> = []

    init(id: ServeClientID, outbox: ClientOutbox, label: String, layout: ServeLayoutKind, viewport: Rect) {
        self.id = id
        self.outbox = outbox
        self.label = label
        self.layout = layout
        self.viewport = viewport
    }

    /// Reads every waiting message.
    func drain() async throws {
        while outbox.count > 0 {
            guard let text = await outbox.next() else { return }
            try take(text)
        }
    }

    /// Every message taken: its type and its seq (the seq it brings, for a
    /// plan).
    var log: [(type: String, seq: Int)] = []

    /// Handles one message, checking it.
    func take(_ text: String) throws {
        let message = try JSON.parse(text)
        guard case let .string(type)? = message["type"] else { throw HubReplica.ReplayFailure(description: "\(label): no type in \(text.prefix(200))") }
        log.append((type, Self.int(message["seq"])))
        switch type {
        case "snapshot":
            seq = Self.int(message["seq"])
            if case let .string(text)? = message["state"] { state = text } else { state = nil }
            replica.sections = []
            let names = HubReplica.array(message["sections"]).compactMap { section -> String? in
                if case let .string(id)? = section["id"] { id } else { nil }
            }
            let ids = HubReplica.array(message["ids"])
            for (name, list) in zip(names, ids) { replica.sections.append(.init(id: name, ids: HubReplica.strings(list))) }
            elements = HubReplica.array(message["elements"])
            elementsViewport = Self.rect(message["viewport"])
        case "elements":
            guard Self.int(message["seq"]) == seq else {
                throw HubReplica.ReplayFailure(description: "\(label): elements at seq \(Self.int(message["seq"])), client at \(seq)")
            }
            elements = HubReplica.array(message["elements"])
            elementsViewport = Self.rect(message["viewport"])
        case "plan":
            let fromSeq = Self.int(message["fromSeq"])
            let newSeq = Self.int(message["seq"])
            // A resumed plan brings the numbering of the hub it came from.
            let resumed = message["resumed"] == .bool(true)
            guard fromSeq == seq, newSeq > fromSeq || resumed else {
                throw HubReplica.ReplayFailure(description: "\(label): plan \(fromSeq)→\(newSeq) while at seq \(seq)")
            }
            guard let changeset = message["changeset"] else { throw HubReplica.ReplayFailure(description: "\(label): a plan without its changeset") }
            try replica.apply(changeset)
            seq = newSeq
            plans += 1
            if resumed { resumedPlans += 1 }
            // A plan that names no state leaves the client with none (as
            // the page): its next hello gets a snapshot.
            if case let .string(text)? = message["state"] { state = text } else { state = nil }
            let counts = HubReplica.array(message["sections"]).map { section -> String in
                "\(section["id"]?.compactText ?? ""):\(section["count"]?.compactText ?? "")"
            }
            let expected = replica.sections.map { "\"\($0.id)\":\($0.ids.count)" }
            // An unchanged plan has no sections: they are as they were.
            guard counts == expected || (message["unchanged"] == .bool(true) && message["sections"] == nil) else {
                throw HubReplica.ReplayFailure(description: "\(label): plan to seq \(newSeq) lists sections \(counts), the replica has \(expected)")
            }
            for section in replica.sections {
                if let bad = section.ids.first(where: forbiddenIDs.contains) {
                    throw HubReplica.ReplayFailure(description: "\(label): row \(bad) of a rolled-back transaction appeared at seq \(newSeq)")
                }
            }
            // A plan of a change the client does not see keeps its elements.
            if message["unchanged"] != .bool(true) {
                elements = HubReplica.array(message["settled"])
                elementsViewport = Rect(origin: Self.point(message["contentOffsetAfter"]), size: elementsViewport.size)
            } else if !HubReplica.array(message["elements"]).isEmpty || message["settled"] != nil {
                throw HubReplica.ReplayFailure(description: "\(label): an unchanged plan to seq \(newSeq) carries elements")
            }
            // The rolled-back transactions of the oracle rename rows "never".
            for element in HubReplica.array(message["elements"]) + elements where element["title"] == .string("never") {
                throw HubReplica.ReplayFailure(description: "\(label): a title of a rolled-back transaction appeared at seq \(newSeq): \(element.compactText)")
            }
        case "done":
            guard Self.int(message["seq"]) <= seq else {
                throw HubReplica.ReplayFailure(description: "\(label): done at seq \(Self.int(message["seq"])) before the plan (client at \(seq))")
            }
            dones.append(message)
        case "error":
            errors.append(message)
        default:
            throw HubReplica.ReplayFailure(description: "\(label): unknown message type \(type)")
        }
    }

    static func int(_ json: JSON?) -> Int {
        if case let .number(text)? = json { return Int(text) ?? Int(Double(text) ?? -1) }
        return -1
    }

    static func double(_ json: JSON?) -> Double {
        if case let .number(text)? = json { return Double(text) ?? .nan }
        return .nan
    }

    static func rect(_ json: JSON?) -> Rect {
        let parts = HubReplica.array(json).map { double($0) }
        guard parts.count == 4 else { return .zero }
        return Rect(x: parts[0], y: parts[1], width: parts[2], height: parts[3])
    }

    static func point(_ json: JSON?) -> Point {
        let parts = HubReplica.array(json).map { double($0) }
        guard parts.count == 2 else { return .zero }
        return Point(x: parts[0], y: parts[1])
    }

    /// Checks the last element set against a fresh layout of the replica in
    /// the same viewport: the same elements, each with the id at its index
    /// path and the frame the layout gives. Returns the problems.
    func checkElements() -> [String] {
        var problems: [String] = []
        let counts = CountsSource(counts: replica.sections.map(\.ids.count))
        let view = CollectionView(layout: layout.makeLayout(width: elementsViewport.size.width, headers: true), size: elementsViewport.size)
        view.anchorsScrollPosition = false
        view.dataSource = counts
        view.reloadData()
        view.setBounds(elementsViewport, animated: false)
        var expected: [String: Rect] = [:]
        for attributes in view.collectionViewLayout.layoutAttributesForElements(in: view.bounds) {
            let section = attributes.indexPath[0]
            switch attributes.category {
            case .cell: expected["i:" + replica.sections[section].ids[attributes.indexPath[1]]] = attributes.frame
            case .supplementaryView(ElementKind.sectionHeader): expected["h:" + replica.sections[section].id] = attributes.frame
            default: break
            }
        }
        var seen = Set<String>()
        for element in elements {
            guard case let .string(key)? = element["key"] else { problems.append("an element without a key"); continue }
            seen.insert(key)
            let section = Self.int(element["section"])
            guard replica.sections.indices.contains(section) else { problems.append("\(key): section \(section) out of range"); continue }
            if case .string("item")? = element["kind"] {
                let item = Self.int(element["item"])
                let ids = replica.sections[section].ids
                guard ids.indices.contains(item), "i:" + ids[item] == key else {
                    problems.append("\(key) at [\(section), \(item)], where the replica has \(ids.indices.contains(item) ? ids[item] : "nothing")")
                    continue
                }
            } else if "h:" + replica.sections[section].id != key {
                problems.append("\(key) heads section \(section), which is \(replica.sections[section].id)")
            }
            let frame = Self.rect(element["frame"])
            guard let want = expected[key] else { problems.append("\(key) is not in the viewport \(elementsViewport) of a fresh layout"); continue }
            if abs(frame.origin.x - want.origin.x) > 1e-6 || abs(frame.origin.y - want.origin.y) > 1e-6
                || abs(frame.size.width - want.size.width) > 1e-6 || abs(frame.size.height - want.size.height) > 1e-6 {
                problems.append("\(key) at \(frame), a fresh layout puts it at \(want)")
            }
        }
        let missing = Set(expected.keys).subtracting(seen)
        if !missing.isEmpty { problems.append("missing elements \(missing.sorted().prefix(5)) in \(elementsViewport)") }
        return problems
    }
}

/// Counts only, for laying out a replica.
final class CountsSource: CollectionViewDataSource {
    let counts: [Int]
    init(counts: [Int]) { self.counts = counts }
    func numberOfSections(in collectionView: CollectionView) -> Int { counts.count }
    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int { counts[section] }
}

/// One client for each layout kind, each with a 600 × 900 viewport at the
/// top and ids, past its `snapshot`; the first may edit.
func connectOnePerLayout(to hub: ServeHub, seed: UInt64) async throws -> [HubTestClient] {
    var clients: [HubTestClient] = []
    for (index, layout) in ServeLayoutKind.allCases.enumerated() {
        let (id, outbox) = await hub.connect(canEdit: index == 0)
        let client = HubTestClient(id: id, outbox: outbox, label: "client \(index) (seed \(seed))", layout: layout, viewport: Rect(x: 0, y: 0, width: 600, height: 900))
        await hub.receive(#"{"type":"hello","layout":"\#(layout.rawValue)","viewport":[0,0,600,900],"ids":true}"#, from: id)
        try await client.drain()
        clients.append(client)
    }
    return clients
}

/// Drains every client's outbox and checks its elements against a fresh
/// layout of what it holds.
func drainAndCheckElements(_ clients: [HubTestClient], step: Int) async throws {
    for client in clients {
        try await client.drain()
        #expect(client.checkElements().isEmpty, "\(client.label), step \(step): \(client.checkElements().prefix(3))")
    }
}

/// The editor heard no error, and every client holds the list the table
/// holds now.
func expectEveryClientAtFreshList(_ clients: [HubTestClient], editor: HubTestClient, library: HubLibrary) throws {
    #expect(editor.errors.isEmpty, "\(editor.errors.map(\.compactText).prefix(2))")
    let fresh = try library.freshList()
    for client in clients { #expect(client.replica.sections == fresh, "\(client.label)") }
}

