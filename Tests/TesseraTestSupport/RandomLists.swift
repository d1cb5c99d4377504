import TesseraDiff

/// Random pairs of flat lists with unique ids: the new list is the old one
/// with random deletes, content changes, moves and inserts.
public struct RandomListPairs {
    public var generator: SplitMix64
    /// The seed the pairs come from.
    public let seed: UInt64
    private var nextID = 0

    public init(seed: UInt64) {
        generator = SplitMix64(seed: seed)
        self.seed = seed
    }

    private mutating func chance(_ percent: Int) -> Bool {
        Int.random(in: 0..<100, using: &generator) < percent
    }

    /// One old/new pair.
    public mutating func next() -> (old: [TestItem], new: [TestItem]) {
        let count = Int.random(in: 0...40, using: &generator)
        var old: [TestItem] = []
        for _ in 0..<count {
            nextID += 1
            old.append(TestItem(id: nextID, content: Int.random(in: 0...2, using: &generator)))
        }
        let intensity = Int.random(in: 0...70, using: &generator)
        var new = old
        new.removeAll { _ in chance(intensity / 2) }
        for i in new.indices where chance(intensity / 2) {
            new[i].content += 1
        }
        if !new.isEmpty {
            for _ in 0..<Int.random(in: 0...6, using: &generator) where chance(intensity) {
                let item = new.remove(at: Int.random(in: 0..<new.count, using: &generator))
                new.insert(item, at: Int.random(in: 0...new.count, using: &generator))
            }
        }
        for _ in 0..<Int.random(in: 0...6, using: &generator) where chance(intensity) {
            nextID += 1
            new.insert(TestItem(id: nextID), at: Int.random(in: 0...new.count, using: &generator))
        }
        if chance(5) { new.shuffle(using: &generator) }
        return (old, new)
    }
}
