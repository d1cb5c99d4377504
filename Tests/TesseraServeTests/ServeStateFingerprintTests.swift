import Foundation
import Testing
import TesseraDiff
@testable import TesseraLiveProtocol
import TesseraTestSupport
import TesseraTestTraits

/// The fingerprint of a list kept up to date from changesets equals the
/// one computed again from the whole list, over random changes; and it
/// tells apart lists a client would show differently.
@Suite("State fingerprint", .tags(.oracle), .cpuBound)
struct ServeStateFingerprintTests {
    /// A section or an item, named by its id.
    struct Named: Identifiable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
        var id: String
        init(_ id: String) { self.id = id }
        init(stringLiteral value: String) { id = value }
        var description: String { id }
    }

    typealias List = Snapshot<Named, Named>

    static func listing(_ list: List) -> ServeStateFingerprint.Listing {
        ServeStateFingerprint.Listing(
            sectionCount: list.numberOfSections,
            itemCount: { list.numberOfItems(inSection: $0) },
            sectionName: { list.sections[$0].id },
            id: { list.items(inSection: $0.section)[list.items(inSection: $0.section).startIndex + $0.item].id }
        )
    }

    /// A list from its sections' names and items' ids.
    static func list(_ sections: [(String, [String])]) -> List {
        List(sections.map { (Named($0.0), $0.1.map { Named($0) }) })
    }

    static let base = ServeStateFingerprint.term(0, "photos")

    static func fingerprint(_ list: List) -> ServeStateFingerprint {
        .of(listing(list), base: base)
    }

    /// A random change of a list: items deleted, inserted and moved within
    /// and across sections, sometimes a section added, removed or moved.
    static func change(_ list: List, next: inout Int, random: inout SplitMix64) -> List {
        var sections = list.sections.map { ($0, Array(list.items(inSection: list.sections.firstIndex(of: $0)!))) }
        let edits = Int.random(in: 0...6, using: &random)
        for _ in 0..<edits {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<3 where !sections.isEmpty:
                let s = Int.random(in: 0..<sections.count, using: &random)
                if !sections[s].1.isEmpty { sections[s].1.remove(at: Int.random(in: 0..<sections[s].1.count, using: &random)) }
            case 3..<6 where !sections.isEmpty:
                let s = Int.random(in: 0..<sections.count, using: &random)
                next += 1
                sections[s].1.insert(Named("n\(next)"), at: Int.random(in: 0...sections[s].1.count, using: &random))
            case 6..<8 where !sections.isEmpty:
                let s = Int.random(in: 0..<sections.count, using: &random)
                guard !sections[s].1.isEmpty else { continue }
                let item = sections[s].1.remove(at: Int.random(in: 0..<sections[s].1.count, using: &random))
                let t = Int.random(in: 0..<sections.count, using: &random)
                sections[t].1.insert(item, at: Int.random(in: 0...sections[t].1.count, using: &random))
            case 8:
                next += 1
                let items = (0..<Int.random(in: 0...4, using: &random)).map { Named("s\(next)-\($0)") }
                sections.insert((Named("section \(next)"), items), at: Int.random(in: 0...sections.count, using: &random))
            default:
                guard sections.count > 1 else { continue }
                if Bool.random(using: &random) {
                    sections.remove(at: Int.random(in: 0..<sections.count, using: &random))
                } else {
                    let moved = sections.remove(at: Int.random(in: 0..<sections.count, using: &random))
                    sections.insert(moved, at: Int.random(in: 0...sections.count, using: &random))
                }
            }
        }
        return List(sections)
    }

    @Test("kept up to date from each changeset, it equals the fingerprint of the whole list", arguments: 0..<6)
    func incrementalEqualsFull(round: Int) throws {
        let seed = testSeed(default: 0xF1A6_0000 + UInt64(round))
        print("ServeStateFingerprintTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        var next = 0
        let sections = Int.random(in: 1...5, using: &random)
        var list = List((0..<sections).map { s in
            (Named("section \(s)"), (0..<Int.random(in: 0...12, using: &random)).map { _ in next += 1; return Named("n\(next)") })
        })
        var fingerprint = Self.fingerprint(list)
        var changed = 0
        for step in 0..<300 {
            let new = Self.change(list, next: &next, random: &random)
            let changeset = try diff(from: list, to: new)
            let updated = try #require(
                fingerprint.updated(from: Self.listing(list), to: Self.listing(new), changeset: changeset),
                "seed \(seed), step \(step): the changeset did not fit"
            )
            let full = Self.fingerprint(new)
            #expect(updated == full, "seed \(seed), step \(step): \(list) → \(new)")
            if updated != full { return }
            if full != fingerprint { changed += 1 }
            #expect((full == fingerprint) == (new == list), "seed \(seed), step \(step): equal lists and equal fingerprints go together")
            fingerprint = updated
            list = new
        }
        #expect(changed > 100, "seed \(seed): only \(changed) steps changed the list")
    }

    @Test("lists shown differently have different fingerprints; the text reads back")
    func tellsListsApart() {
        let list = Self.list([("a", ["1", "2", "3"]), ("b", ["4"])])
        let same = Self.fingerprint(Self.list([("a", ["1", "2", "3"]), ("b", ["4"])]))
        #expect(Self.fingerprint(list) == same)
        let others: [List] = [
            Self.list([("a", ["2", "1", "3"]), ("b", ["4"])]),       // order
            Self.list([("a", ["1", "2"]), ("b", ["3", "4"])]),       // section
            Self.list([("b", ["4"]), ("a", ["1", "2", "3"])]),       // sections' order
            Self.list([("c", ["1", "2", "3"]), ("b", ["4"])]),       // section's name
            Self.list([("a", ["1", "2", "3"]), ("b", ["4"]), ("c", [])]),
            Self.list([("a", ["1", "2", "3", "4"])]),
            Self.list([("a", ["12", "3"]), ("b", ["4"])]),
        ]
        for other in others { #expect(Self.fingerprint(other) != same, "\(other)") }
        #expect(ServeStateFingerprint.of(Self.listing(list), base: .term(0, "other table")) != same)
        #expect(ServeStateFingerprint(text: same.description) == same)
        #expect(same.description.count == 32)
        #expect(ServeStateFingerprint(text: same.description.uppercased()) == same)
        for bad in ["", "0", String(repeating: "g", count: 32), String(repeating: "0", count: 33), "0x" + String(repeating: "0", count: 30)] {
            #expect(ServeStateFingerprint(text: bad) == nil, "\(bad)")
        }
    }
}
