import TesseraDiff

/// Random snapshot pairs for property tests: a random old snapshot, and a new
/// one made from it by random section deletes, inserts, moves and content
/// changes, and random item deletes, inserts, moves within and across
/// sections and content changes. Empty sections happen.
public struct RandomSnapshotPairs {
    public var generator: SplitMix64
    public var maxSections: Int
    public var maxItems: Int
    /// The seed the pairs come from.
    public let seed: UInt64
    private var nextID = 0

    /// Pairs from `seed` of up to 8 sections and 64 items.
    public init(seed: UInt64) {
        self.init(seed: seed, maxSections: 8, maxItems: 64)
    }

    public init(seed: UInt64, maxSections: Int = 8, maxItems: Int = 64) {
        generator = SplitMix64(seed: seed)
        self.seed = seed
        self.maxSections = maxSections
        self.maxItems = maxItems
    }

    private mutating func freshID() -> Int {
        nextID += 1
        return nextID
    }

    private mutating func chance(_ percent: Int) -> Bool {
        Int.random(in: 0..<100, using: &generator) < percent
    }

    /// One old/new pair.
    public mutating func next() -> (old: TestSnapshot, new: TestSnapshot) {
        let sectionCount = Int.random(in: 0...maxSections, using: &generator)
        var totalItems = Int.random(in: 0...maxItems, using: &generator)
        var old = TestSnapshot()
        for s in 0..<sectionCount {
            let count = s == sectionCount - 1 ? totalItems : Int.random(in: 0...totalItems, using: &generator)
            totalItems -= count
            old.appendSection(
                TestSection(id: freshID(), content: Int.random(in: 0...1, using: &generator)),
                items: (0..<count).map { _ in TestItem(id: freshID(), content: Int.random(in: 0...3, using: &generator)) }
            )
        }

        // Sections: a list of (section, items) we reshape.
        var sections: [(TestSection, [TestItem])] = (0..<old.numberOfSections).map {
            (old[section: $0], Array(old.items(inSection: $0)))
        }
        let intensity = Int.random(in: 0...60, using: &generator)
        sections.removeAll { _ in chance(intensity / 3) }
        if !sections.isEmpty, chance(intensity) {
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let from = Int.random(in: 0..<sections.count, using: &generator)
                let moved = sections.remove(at: from)
                sections.insert(moved, at: Int.random(in: 0...sections.count, using: &generator))
            }
        }
        for s in sections.indices where chance(intensity / 3) {
            sections[s].0.content += 1
        }
        for _ in 0..<Int.random(in: 0...2, using: &generator) where chance(intensity) && sections.count < maxSections {
            let count = Int.random(in: 0...4, using: &generator)
            sections.insert(
                (TestSection(id: freshID()), (0..<count).map { _ in TestItem(id: freshID()) }),
                at: Int.random(in: 0...sections.count, using: &generator)
            )
        }
        // Items: deletes, content changes, moves (within and across), inserts.
        for s in sections.indices {
            sections[s].1.removeAll { _ in chance(intensity / 3) }
            for i in sections[s].1.indices where chance(intensity / 3) {
                sections[s].1[i].content += 1
            }
        }
        if !sections.isEmpty {
            for _ in 0..<Int.random(in: 0...6, using: &generator) where chance(intensity) {
                let from = Int.random(in: 0..<sections.count, using: &generator)
                guard !sections[from].1.isEmpty else { continue }
                let item = sections[from].1.remove(at: Int.random(in: 0..<sections[from].1.count, using: &generator))
                let to = chance(50) ? from : Int.random(in: 0..<sections.count, using: &generator)
                sections[to].1.insert(item, at: Int.random(in: 0...sections[to].1.count, using: &generator))
            }
            for _ in 0..<Int.random(in: 0...4, using: &generator) where chance(intensity) {
                let to = Int.random(in: 0..<sections.count, using: &generator)
                sections[to].1.insert(TestItem(id: freshID()), at: Int.random(in: 0...sections[to].1.count, using: &generator))
            }
        }
        return (old, TestSnapshot(sections))
    }
}
