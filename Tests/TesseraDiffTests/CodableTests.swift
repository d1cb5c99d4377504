import Foundation
import Testing
import TesseraDiff
import TesseraTestSupport
import TesseraTestTraits

/// A deterministic encoder: sorted keys, so equal values give equal bytes.
private func encode<T: Encodable>(_ value: T) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return try encoder.encode(value)
}

private func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
    try JSONDecoder().decode(type, from: data)
}

/// Expects `value` to survive a JSON round trip, and two encodings of it to
/// be byte-identical; returns the encoded bytes.
@discardableResult
private func expectRoundTrip<T: Codable & Equatable>(
    _ value: T,
    _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> Data {
    let data = try encode(value)
    let again = try encode(value)
    #expect(data == again, "encoding twice differs", sourceLocation: sourceLocation)
    let decoded = try decode(T.self, from: data)
    #expect(decoded == value, "\(comment?.rawValue ?? "") JSON: \(String(decoding: data, as: UTF8.self))", sourceLocation: sourceLocation)
    // The decoded value encodes to the same bytes.
    #expect(try encode(decoded) == data, sourceLocation: sourceLocation)
    return data
}

private func ip(_ section: Int, _ item: Int) -> IndexPath {
    IndexPath(item: item, section: section)
}

@Suite("Codable", .cpuBound)
struct CodableTests {
    static let sampleChangeset = Changeset(
        sectionDeletes: [1],
        sectionInserts: [0, 3],
        sectionMoves: [Move(from: 2, to: 1)],
        sectionUpdates: [Move(from: 0, to: 2)],
        itemDeletes: [ip(0, 1)],
        itemInserts: [ip(2, 0), ip(2, 4)],
        itemMoves: [Move(from: ip(0, 2), to: ip(1, 0))],
        itemUpdates: [Move(from: ip(0, 0), to: ip(2, 1))]
    )

    @Test("A Changeset with every kind of operation round-trips through JSON")
    func changesetRoundTrip() throws {
        try expectRoundTrip(Self.sampleChangeset)
        try expectRoundTrip(Changeset())
    }

    @Test("A ListChangeset round-trips through JSON, and its sorted-key form is stable text")
    func listChangesetRoundTrip() throws {
        let changeset = ListChangeset(deletes: [1, 4], inserts: [0], moves: [Move(from: 2, to: 0)], updates: [Move(from: 3, to: 1)])
        let data = try expectRoundTrip(changeset)
        #expect(String(decoding: data, as: UTF8.self)
            == #"{"deletes":[1,4],"inserts":[0],"moves":[{"from":2,"to":0}],"updates":[{"from":3,"to":1}]}"#)
        try expectRoundTrip(ListChangeset())
    }

    @Test("UpdateItems of every action, section- and item-level, with and without paths, round-trip")
    func updateItemRoundTrip() throws {
        let items: [UpdateItem] = [
            .insertSection(2), .deleteSection(0), .reloadSection(1), .reloadSection(1, landing: 3), .moveSection(0, to: 4),
            .insertItem(at: ip(0, 1)), .deleteItem(at: ip(2, 3)), .reloadItem(at: ip(1, 1)),
            .reloadItem(at: ip(1, 1), landing: ip(0, 0)), .moveItem(from: ip(0, 0), to: ip(3, 2)),
            UpdateItem(action: .none, before: nil, after: nil),
            UpdateItem(action: .none, before: ip(5, 5), after: nil),
        ]
        for item in items {
            try expectRoundTrip(item, "\(item)")
        }
        try expectRoundTrip(items)
    }

    @Test("A BatchUpdate with follow-up reloads round-trips, under both policies")
    func batchUpdateRoundTrip() throws {
        for policy in MoveAndUpdatePolicy.allCases {
            let batch = BatchUpdate(Self.sampleChangeset, policy: policy)
            try expectRoundTrip(batch, "\(policy)")
        }
        let handMade = BatchUpdate(
            items: [.deleteItem(at: ip(0, 0)), .moveSection(1, to: 0)],
            followUpReloads: [.reloadItem(at: ip(0, 2))],
            policy: .moveThenReload
        )
        try expectRoundTrip(handMade)
    }

    @Test("A StagedBatchUpdate round-trips, and its stages encode as their names")
    func stagedBatchUpdateRoundTrip() throws {
        let staged = try StagedBatchUpdate(Self.sampleChangeset, sectionCountBefore: 3)
        #expect(!staged.steps.isEmpty)
        try expectRoundTrip(staged)
        try expectRoundTrip(StagedBatchUpdate(steps: []))
        for stage in StagedBatchUpdate.Stage.allCases {
            let data = try encode(stage)
            #expect(String(decoding: data, as: UTF8.self) == "\"\(stage.rawValue)\"")
        }
    }

    @Test("A snapshot encodes as an array of {section, items} entries and decodes back")
    func snapshotEncodedForm() throws {
        var snapshot = TestSnapshot()
        snapshot.appendSection(TestSection(id: 1, content: 2), items: [TestItem(id: 10), TestItem(id: 11, content: 3)])
        snapshot.appendSection(TestSection(id: 2))
        let data = try expectRoundTrip(snapshot)
        #expect(String(decoding: data, as: UTF8.self)
            == #"[{"items":[{"content":0,"id":10},{"content":3,"id":11}],"section":{"content":2,"id":1}},{"items":[],"section":{"content":0,"id":2}}]"#)
        try expectRoundTrip(TestSnapshot())
    }

    @Test("A snapshot decodes from handwritten JSON, including empty sections")
    func snapshotDecodesHandwrittenJSON() throws {
        let json = #"[{"section":{"id":7,"content":0},"items":[]},{"section":{"id":8,"content":1},"items":[{"id":1,"content":0},{"id":2,"content":0}]}]"#
        let snapshot = try decode(TestSnapshot.self, from: Data(json.utf8))
        #expect(snapshot == TestSnapshot([7: [], 8: [1, 2]]).withSectionContent(1, at: 1))
        #expect(snapshot.itemCounts == [0, 2])
    }

    @Test("Random snapshots, their diffs and their batches round-trip, and diffing twice gives identical bytes")
    func randomRoundTrips() throws {
        try RandomSnapshotPairs.forEachRound(200, seed: 0xC0DA_B1E5) { _, old, new, round in
            let context = Comment(rawValue: round)
            try expectRoundTrip(old, context)
            try expectRoundTrip(new, context)

            let first = try diff(from: old, to: new)
            let second = try diff(from: old, to: new)
            let firstData = try expectRoundTrip(first, context)
            #expect(try encode(second) == firstData, context)

            for policy in MoveAndUpdatePolicy.allCases {
                let batch = try expectRoundTrip(BatchUpdate(first, policy: policy), context)
                #expect(try encode(BatchUpdate(second, policy: policy)) == batch, context)
            }
            let staged = try expectRoundTrip(try StagedBatchUpdate(first, sectionCountBefore: old.numberOfSections), context)
            #expect(try encode(try StagedBatchUpdate(second, sectionCountBefore: old.numberOfSections)) == staged, context)

            let oldItems = old.allItems
            let newItems = new.allItems
            let listFirst = try diff(from: oldItems, to: newItems)
            let listData = try expectRoundTrip(listFirst, context)
            #expect(try encode(diff(from: oldItems, to: newItems)) == listData, context)
        }
    }

    @Test("Decoding a snapshot whose entry lacks items fails")
    func snapshotMissingItemsFails() {
        let json = #"[{"section":{"id":7,"content":0}}]"#
        #expect(throws: DecodingError.self) {
            try decode(TestSnapshot.self, from: Data(json.utf8))
        }
    }
}

private extension Snapshot where Section == TestSection, Item == TestItem {
    func withSectionContent(_ content: Int, at section: Int) -> Self {
        var copy = self
        copy[section: section].content = content
        return copy
    }
}
