import Foundation
import TesseraCommandKit
import TesseraDemoPhotos
import TesseraRender
import TesseraTestTraits
import Testing

/// `tessera bench diff old.json new.json`: the user's snapshot files, as
/// they are and scaled.
@Suite("tessera bench diff on snapshot files, end to end", .tags(.process), .ownThreads)
struct BenchFileTests {
    /// A snapshot file's text: sections of (id, items of (id, content)).
    static func document(_ sections: [(id: String, items: [(id: String, content: Int)])]) -> String {
        let values = sections.map { section in
            JSON.object([
                ("id", .string(section.id)),
                ("items", .array(section.items.map { .object([("id", .string($0.id)), ("content", .int($0.content))]) })),
            ])
        }
        return JSON.object([("sections", .array(values))]).compactText
    }

    /// Writes the two files into a fresh folder and runs
    /// `tessera bench diff old.json new.json --json --runs 1` with `extra`.
    static func run(old: String, new: String, _ extra: [String] = []) throws -> (Tool.Result, JSON?) {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try old.write(to: folder.appendingPathComponent("old.json"), atomically: true, encoding: .utf8)
        try new.write(to: folder.appendingPathComponent("new.json"), atomically: true, encoding: .utf8)
        let result = try Tool.run(["bench", "diff", "old.json", "new.json", "--json", "--runs", "1"] + extra, in: folder)
        guard result.status == 0 else { return (result, nil) }
        return (result, try JSON.parse(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// The results of a run by method name (one size).
    static func results(_ json: JSON?) -> [String: JSON] {
        guard case let .array(values)? = json?["results"] else { return [:] }
        var byName: [String: JSON] = [:]
        for value in values { if case let .string(name)? = value["name"] { byName[name] = value } }
        return byName
    }

    /// A method's counts as (deletes, inserts, moves, updates), `nil` for
    /// a count it does not tell.
    static func counts(_ result: JSON?) -> [Int?] {
        ["deletes", "inserts", "moves", "updates"].map { key in
            if case let .number(text)? = result?["counts"]?[key] { Int(text) } else { nil }
        }
    }

    static let swift = "Swift difference(from:).inferringMoves()"
    static let orderedSet = "OrderedSet(ids).difference(from:)"

    /// `allocations` is a whole number, or null while the executable
    /// cannot count.
    /// Whether these tests (and so the `tessera` they run) are built with
    /// AddressSanitizer or ThreadSanitizer, whose allocator the command's
    /// malloc counter leaves alone.
    static let sanitized = dlsym(nil, "__asan_init") != nil || dlsym(nil, "__tsan_init") != nil

    /// Every method's allocations are a count, and Tessera's diff allocates
    /// (its tables); under a sanitizer they are `null`, not measured.
    static func checkAllocations(_ result: JSON?) {
        switch result?["allocations"] {
        case .null?:
            #expect(sanitized, "allocations not measured in a build without a sanitizer: \(result?.compactText ?? "nil")")
        case let .number(text)?:
            #expect(!sanitized, "allocations \(text) measured under a sanitizer")
            var minimum: Int64 = 0
            if case let .string(name)? = result?["name"], name.hasPrefix("Tessera") { minimum = 1 }
            #expect(Int64(text).map { $0 >= minimum } == true, "allocations \(text) of \(result?.compactText ?? "nil")")
        default: Issue.record("no allocations in \(result?.compactText ?? "nil")")
        }
    }

    @Test("a flat file pair: every method's counts are the change made, and the JSON has its documented shape")
    func flatFiles() throws {
        let old = Self.document([("list", [("1", 1), ("2", 2), ("3", 3), ("4", 4), ("5", 5), ("6", 6)])])
        // 2 deleted, 9 inserted, 5 moved to the front, 3's content changed.
        let new = Self.document([("list", [("5", 5), ("1", 1), ("3", 33), ("4", 4), ("9", 9), ("6", 6)])])
        let (result, json) = try Self.run(old: old, new: new)
        try #require(result.status == 0, "stderr: \(result.stderr)")
        let results = Self.results(json)
        #expect(Self.counts(results["Tessera diff(from:to:)"]) == [1, 1, 1, 1])
        #expect(Self.counts(results["Dictionary floor"]) == [1, 1, nil, nil])
        #expect(Self.counts(results[Self.swift]) == [1, 1, 1, nil])
        #expect(Self.counts(results[Self.orderedSet]).prefix(2) == [1, 1])
        #expect(results["Tessera diff(from:to:)"]?["counts"]?["sections"] == nil)
        let input = try #require(json?["input"])
        #expect(input["kind"] == .string("snapshots"))
        #expect(input["label"] == .string("old.json → new.json"))
        #expect(input["flat"] == .bool(true))
        #expect(input["oldItems"] == .int(6) && input["newItems"] == .int(6))
        #expect(json?["sizes"] == .array([.int(6)]))
        #expect(json?["exponents"] == .array([]))
        #expect(json?["leftOut"] == .array([]))
        #expect(json?["runs"] == .int(1))
        for value in results.values {
            #expect(value["size"] == .int(6))
            for key in ["medianSeconds", "p90Seconds", "ratio"] {
                guard case let .number(text)? = value[key], let number = Double(text) else {
                    Issue.record("no \(key) in \(value.compactText)")
                    continue
                }
                #expect(number.isFinite && number >= 0)
            }
            Self.checkAllocations(value)
        }
    }

    @Test("a sectioned file pair: Tessera's item and section counts are the change made")
    func sectionedFiles() throws {
        let old = Self.document([("a", [("1", 1), ("2", 2), ("3", 3)]), ("b", [("4", 4), ("5", 5)])])
        // 3 and 4 deleted, 6 inserted, 1 and 2 swapped (one move), 5
        // updated, section c (with 7) inserted.
        let new = Self.document([("a", [("2", 2), ("1", 1), ("6", 6)]), ("b", [("5", 55)]), ("c", [("7", 7)])])
        let (result, json) = try Self.run(old: old, new: new)
        try #require(result.status == 0, "stderr: \(result.stderr)")
        let results = Self.results(json)
        let tessera = results["Tessera diff of 2 → 3 sections"]
        #expect(Self.counts(tessera) == [2, 1, 1, 1])
        #expect(tessera?["counts"]?["sections"] == .object([("deletes", .int(0)), ("inserts", .int(1)), ("moves", .int(0)), ("updates", .int(0))]))
        // The others see all items as one list of ids: 7 is an insert too.
        #expect(Self.counts(results["Dictionary floor"]) == [2, 2, nil, nil])
        #expect(Self.counts(results[Self.swift]) == [2, 2, 1, nil])
        #expect(json?["input"]?["flat"] == .bool(false))
    }

    @Test("random seeded file pairs: every method's deletes and inserts are the id sets' differences, Tessera's moves are the minimum and its changeset replays",
          arguments: [false, true])
    func randomPairs(sectioned: Bool) throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["TESSERA_SEED"] ?? "") ?? 19
        var random = SplitMix64(seed: seed &+ (sectioned ? 1000 : 0))
        for round in 0..<6 {
            let count = 20 + Int(random.next() % 40)
            let old = (0..<count).map { (id: "i\($0)", content: Int(random.next() % 3)) }
            var new = old.filter { _ in random.next() % 5 != 0 }
            for index in new.indices where random.next() % 6 == 0 { new[index].content += 1 }
            for _ in 0..<Int(random.next() % 8) {
                let from = Int(random.next() % UInt64(new.count)), to = Int(random.next() % UInt64(new.count))
                new.insert(new.remove(at: from), at: to)
            }
            for extra in 0..<Int(random.next() % 6) {
                new.insert((id: "n\(extra)", content: 0), at: Int(random.next() % UInt64(new.count + 1)))
            }
            // Sectioned: the lists cut into three sections at random places.
            func sections(_ items: [(id: String, content: Int)]) -> [(id: String, items: [(id: String, content: Int)])] {
                guard sectioned else { return [("all", items)] }
                let cuts = [Int(random.next() % UInt64(items.count + 1)), Int(random.next() % UInt64(items.count + 1))].sorted()
                return [("s0", Array(items[..<cuts[0]])), ("s1", Array(items[cuts[0]..<cuts[1]])), ("s2", Array(items[cuts[1]...]))]
            }
            let (result, json) = try Self.run(old: Self.document(sections(old)), new: Self.document(sections(new)))
            try #require(result.status == 0, "seed \(seed), round \(round): \(result.stderr)")
            let oldIDs = Set(old.map(\.id)), newIDs = Set(new.map(\.id))
            let deletes = oldIDs.subtracting(newIDs).count, inserts = newIDs.subtracting(oldIDs).count
            let results = Self.results(json)
            for name in ["Dictionary floor", Self.swift, Self.orderedSet] {
                #expect(Self.counts(results[name]).prefix(2) == [deletes, inserts], "seed \(seed), round \(round): \(name)")
            }
            // Moves: Swift's difference is minimal over unique ids, and so
            // is Tessera's (one longest increasing subsequence stays);
            // OrderedSet's greedy difference may move more.
            let swiftMoves = Self.counts(results[Self.swift])[2], orderedSetMoves = Self.counts(results[Self.orderedSet])[2]
            guard !sectioned else {
                // Tessera's sectioned changeset is replayed by the command
                // itself: a status of 0 says it replays.
                continue
            }
            let oldOffset = Dictionary(uniqueKeysWithValues: old.enumerated().map { ($1.id, $0) })
            let common = new.compactMap { oldOffset[$0.id] }
            var longest = Array(repeating: 1, count: common.count)
            for i in common.indices { for j in 0..<i where common[j] < common[i] { longest[i] = max(longest[i], longest[j] + 1) } }
            let minimalMoves = common.count - (longest.max() ?? 0)
            let updated = new.filter { item in old.first { $0.id == item.id }.map { $0.content != item.content } ?? false }.count
            #expect(Self.counts(results["Tessera diff(from:to:)"]) == [deletes, inserts, minimalMoves, updated], "seed \(seed), round \(round)")
            #expect(swiftMoves == minimalMoves, "seed \(seed), round \(round)")
            #expect((orderedSetMoves ?? -1) >= minimalMoves, "seed \(seed), round \(round)")
        }
    }

    @Test("--scale repeats each section's items: the counts are the files' counts times the copies, the sections' unchanged")
    func scale() throws {
        let old = Self.document([("a", [("1", 1), ("2", 2), ("3", 3)]), ("b", [("4", 4), ("5", 5)])])
        let new = Self.document([("a", [("2", 2), ("1", 1), ("6", 6)]), ("b", [("5", 55)]), ("c", [("7", 7)])])
        let (result, json) = try Self.run(old: old, new: new, ["--scale", "3"])
        try #require(result.status == 0, "stderr: \(result.stderr)")
        let results = Self.results(json)
        let tessera = results["Tessera diff of 2 → 3 sections"]
        #expect(Self.counts(tessera) == [6, 3, 3, 3])
        #expect(tessera?["counts"]?["sections"]?["inserts"] == .int(1))
        #expect(Self.counts(results["Dictionary floor"]) == [6, 6, nil, nil])
        #expect(json?["sizes"] == .array([.int(15)]))
        #expect(json?["input"]?["scaled"] == .array([.object([("size", .int(15)), ("copies", .int(3)), ("newItems", .int(15)), ("asked", .array([.int(15)]))])]))
        #expect(json?["input"]?["oldItems"] == .int(5))
    }

    /// A list of ten items, and the same list reversed.
    static let tenItemsReversed = (
        old: document([("list", (0..<10).map { ("\($0)", $0) })]),
        new: document([("list", (0..<10).reversed().map { ("\($0)", $0) })])
    )

    @Test("--sweep on files scales to the nearest whole number of copies, and fits an exponent per method")
    func sweepOfFiles() throws {
        let (old, new) = Self.tenItemsReversed
        let (result, json) = try Self.run(old: old, new: new, ["--sweep", "10,24,100"])
        try #require(result.status == 0, "stderr: \(result.stderr)")
        #expect(json?["sizes"] == .array([.int(10), .int(20), .int(100)]))
        guard case let .array(rows)? = json?["results"], case let .array(exponents)? = json?["exponents"] else {
            Issue.record("no results or exponents")
            return
        }
        #expect(rows.count == 12)
        #expect(exponents.count == 4)
        // Reversing 10 items is 9 moves; each copy is reversed on its own.
        let tessera = rows.filter { $0["name"] == .string("Tessera diff(from:to:)") }
        #expect(tessera.map { Self.counts($0)[2] } == [9, 18, 90])
    }

    @Test("a copy's id that is already an id of the files is an error naming it")
    func scaleCollision() throws {
        let old = Self.document([("list", [("1", 1), ("1#1", 2)])])
        let (result, _) = try Self.run(old: old, new: old, ["--scale", "2"])
        #expect(result.status == 64)
        #expect(result.stderr == "tessera: error: --scale 2: the id \"1#1\" of copy 1 of \"1\" is already an id in old.json → new.json\n")
    }

    @Test("a missing file, a file that is not a snapshot, and duplicate ids are one-line errors naming the file")
    func badFiles() throws {
        let good = Self.document([("list", [("1", 1)])])
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try good.write(to: folder.appendingPathComponent("good.json"), atomically: true, encoding: .utf8)
        try "{\"sections\": 3}".write(to: folder.appendingPathComponent("bad.json"), atomically: true, encoding: .utf8)
        let absent = try Tool.run(["bench", "diff", "good.json", "absent.json"], in: folder)
        #expect(absent.status == 1)
        #expect(absent.stderr.hasPrefix("tessera: error: absent.json: "))
        #expect(absent.stderr.filter { $0 == "\n" }.count == 1)
        let bad = try Tool.run(["bench", "diff", "bad.json", "good.json"], in: folder)
        #expect(bad.status == 1)
        #expect(bad.stderr == "tessera: error: bad.json: \"sections\" must be an array, found a number\n")
        let (duplicate, _) = try Self.run(old: Self.document([("list", [("1", 1), ("1", 2)])]), new: good)
        #expect(duplicate.status == 1)
        #expect(duplicate.stderr == "tessera: error: old.json: duplicate item id \"1\" at sections[0].items[0] and sections[0].items[1]\n")
    }
}
