#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TesseraDiff
import TesseraTestSupport

/// The batch validator, replay and ``BatchIndexMapping`` on arbitrary
/// batches and counts, negative and out-of-range ones included.
///
/// Oracles: nothing traps; a batch the validator refuses, the mapping
/// refuses too, and replay gives no snapshot with the counts after; a
/// batch it accepts replays to exactly the snapshot the mapping describes
/// (each item where the mapping sends it, both ways); a batch valid under
/// UIKit's rules is valid under Tessera's.
public enum BatchFuzzCheck {
    public static func problems(_ input: inout FuzzInput) -> [String] {
        let before = (0..<input.int(in: 0...4)).map { _ in input.int(in: -1...8) }
        let after = (0..<input.int(in: 0...4)).map { _ in input.int(in: -1...8) }
        func section() -> Int { input.int(in: -1...4) }
        func path() -> IndexPath { IndexPath(item: input.int(in: -1...8), section: section()) }
        var items: [UpdateItem] = []
        for _ in 0..<input.int(in: 0...10) {
            switch input.int(in: 0...9) {
            case 0: items.append(.insertSection(section()))
            case 1: items.append(.deleteSection(section()))
            case 2: items.append(.reloadSection(section(), landing: input.bool() ? section() : nil))
            case 3: items.append(.moveSection(section(), to: section()))
            case 4, 5: items.append(.insertItem(at: path()))
            case 6, 7: items.append(.deleteItem(at: path()))
            case 8: items.append(.reloadItem(at: path(), landing: input.bool() ? path() : nil))
            default: items.append(.moveItem(from: path(), to: path()))
            }
        }
        let label = "\(items) from \(before) to \(after)"
        var problems: [String] = []
        // Old items 0, 1, 2… in reading order; the target's items are new
        // ids, so an item's id tells where it came from.
        var next = 0
        var old = TestSnapshot()
        for (s, count) in before.enumerated() {
            old.appendSection(TestSection(id: s), items: (0..<max(count, 0)).map { _ in next += 1; return TestItem(id: next - 1) })
        }
        var target = TestSnapshot()
        for (t, count) in after.enumerated() {
            target.appendSection(TestSection(id: 100 + t), items: (0..<max(count, 0)).map { _ in next += 1; return TestItem(id: next - 1) })
        }

        let valid: Bool
        do {
            try BatchValidator.validate(items, itemCountsBefore: before, itemCountsAfter: after, rules: .tessera)
            valid = true
        } catch {
            valid = false
        }
        let validUnderUIKit = (try? BatchValidator.validate(items, itemCountsBefore: before, itemCountsAfter: after, rules: .uikit)) != nil
        if validUnderUIKit && !valid { problems.append("\(label): valid under UIKit's rules, not under Tessera's") }
        let mapping = try? BatchIndexMapping(items, itemCountsBefore: before, itemCountsAfter: after)
        if (mapping != nil) != valid { problems.append("\(label): the validator says \(valid), the mapping \(mapping != nil)") }
        guard valid, let mapping else {
            // Replay reads the counts after from the batch itself; it must
            // not accept what the validator refuses for these counts.
            let replayed = try? old.applying(items, takingValuesFrom: target)
            if let replayed, replayed.itemCounts == after, before.allSatisfy({ $0 >= 0 }) {
                problems.append("\(label): the validator refuses it, yet replay gives \(replayed)")
            }
            return problems
        }
        // What the batch must give, by the mapping: each new section and
        // item that comes from an old one has its id, the others fresh
        // ones. Replay taking values from it must give exactly it.
        var expected = TestSnapshot()
        for t in 0..<after.count {
            let items = (0..<after[t]).map { item -> TestItem in
                if let from = mapping.indexPathBefore(IndexPath(item: item, section: t)) { return old[from] }
                next += 1
                return TestItem(id: next - 1)
            }
            expected.appendSection(TestSection(id: mapping.sectionBefore(t) ?? 100 + t), items: items)
        }
        do {
            let replayed = try old.applying(items, takingValuesFrom: expected)
            if replayed != expected { problems.append("\(label): replay gives \(replayed), the mapping \(expected)") }
        } catch {
            problems.append("\(label): valid, yet replay refuses it: \(error)")
        }
        for s in 0..<before.count {
            for i in 0..<before[s] {
                let from = IndexPath(item: i, section: s)
                guard let to = mapping.indexPathAfter(from) else { continue }
                if mapping.indexPathBefore(to) != from {
                    problems.append("\(label): \(from) maps to \(to), which maps back to \(String(describing: mapping.indexPathBefore(to)))")
                }
            }
        }
        return problems
    }
}
