import TesseraDiff
import TesseraTestSupport

/// The diff on arbitrary id sequences, duplicates included.
///
/// Oracles: ids repeated within one side give the typed duplicate error;
/// otherwise replaying the changeset (as it is, as one UIKit-safe batch and
/// as staged batches) on the old snapshot gives the new one, the batch
/// passes the validator under UIKit's rules, and the changeset does not
/// depend on the id hashing's key.
public enum DiffFuzzCheck {
    public static func problems(_ input: inout FuzzInput) -> [String] {
        // A narrow id range makes repeats and shared ids likely; a wide one
        // makes every id distinct.
        let idRange = input.bool() ? 0...15 : 0...65_535
        func snapshot() -> TestSnapshot {
            var result = TestSnapshot()
            for _ in 0..<input.int(in: 0...4) {
                let items = (0..<input.int(in: 0...12)).map { _ in TestItem(id: input.int(in: idRange), content: input.int(in: 0...1)) }
                result.appendSection(TestSection(id: input.int(in: 0...5), content: input.int(in: 0...1)), items: items)
            }
            return result
        }
        let old = snapshot()
        let new = snapshot()
        var problems: [String] = []
        let label = "\(old) → \(new)"
        let repeats = hasRepeats(old) || hasRepeats(new)
        do {
            let changeset = try diff(from: old, to: new)
            if repeats { return ["\(label): ids repeat, yet the diff gave \(changeset)"] }
            if (try? old.applying(changeset, takingValuesFrom: new)) != new {
                problems.append("\(label): replaying \(changeset) does not give the new snapshot")
            }
            let policy = MoveAndUpdatePolicy.allCases[input.int(in: 0...MoveAndUpdatePolicy.allCases.count - 1)]
            let batch = BatchUpdate(changeset, policy: policy)
            if (try? old.applying(batch, takingValuesFrom: new)) != new {
                problems.append("\(label): replaying the batch \(batch) does not give the new snapshot")
            }
            for (index, items) in batch.batches.enumerated() {
                do {
                    try BatchValidator.validate(items, itemCountsBefore: index == 0 ? old.itemCounts : new.itemCounts, itemCountsAfter: new.itemCounts, rules: .uikit)
                } catch {
                    problems.append("\(label): UIKit's rules refuse batch \(index) of \(batch): \(error)")
                }
            }
            do {
                let staged = try StagedBatchUpdate(changeset, sectionCountBefore: old.numberOfSections)
                if (try? old.applying(staged, takingValuesFrom: new)) != new {
                    problems.append("\(label): replaying the staged batches does not give the new snapshot")
                }
            } catch {
                problems.append("\(label): the staged form refuses a diff's changeset: \(error)")
            }
            // The flat diff of the first sections, under two hashing keys.
            let oldItems = old.numberOfSections > 0 ? Array(old.items(inSection: 0)) : []
            let newItems = new.numberOfSections > 0 ? Array(new.items(inSection: 0)) : []
            var keys = SplitMix64(seed: UInt64(oldItems.count &* 31 &+ newItems.count))
            let first = try? TesseraDiff.diff(from: oldItems, to: newItems, hashKey: _IDHashKey(using: &keys))
            let second = try? TesseraDiff.diff(from: oldItems, to: newItems, hashKey: _IDHashKey(using: &keys))
            if first != second {
                problems.append("\(oldItems) → \(newItems): the flat diff depends on the hashing key: \(String(describing: first)) against \(String(describing: second))")
            }
        } catch let error as DiffError {
            if !repeats { problems.append("\(label): no id repeats, yet the diff threw \(error)") }
        } catch {
            problems.append("\(label): the diff threw an untyped error \(error)")
        }
        return problems
    }

    static func hasRepeats(_ snapshot: TestSnapshot) -> Bool {
        var sections = Set<Int>()
        var items = Set<Int>()
        for section in 0..<snapshot.numberOfSections {
            if !sections.insert(snapshot[section: section].id).inserted { return true }
            for item in snapshot.items(inSection: section) where !items.insert(item.id).inserted { return true }
        }
        return false
    }
}
