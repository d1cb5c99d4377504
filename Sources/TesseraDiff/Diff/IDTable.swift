/// An open-addressing hash table from ids to element positions, built for one
/// diff and freed at its end.
///
/// A slot is 8 bytes: 32 bits of the id's hash (the *tag*) and a 32-bit
/// position. The table never stores ids: a slot whose tag matches is
/// confirmed by the caller, who reads the id at that position. Positions are
/// `>= 0` for an old element and `<= -2` for a new element with no old
/// counterpart (`-(offset + 2)`); `-1` marks an empty slot. Linear probing
/// over a power-of-two capacity with Fibonacci hashing; the table grows when
/// three quarters full.
///
/// The table counts the slots it reads (``probes``). With hashes that
/// spread at random, a lookup reads about two on average, and the inserts
/// between two growths about four; ``isFlooded`` says when the count has
/// gone past ``probeBudgetPerCall`` per call (plus a fixed allowance for
/// small tables), which only ids chosen to collide make happen. Its owner
/// then starts again with other hashing, so that no choice of ids makes a
/// diff quadratic. Nothing is ever read from the table in slot order except
/// by ``grow(hashOf:)``, which only moves entries, so what a diff reports
/// does not depend on the hashing.
///
/// A plain struct held in a local, so the hot loop reads its fields without
/// exclusivity checks; its owner calls ``deallocate()`` exactly once (with
/// `defer`) and never copies it.
@usableFromInline
struct _IDTable {
    @usableFromInline
    struct Slot {
        @usableFromInline var tag: UInt32
        @usableFromInline var position: Int32

        @inlinable init(tag: UInt32, position: Int32) {
            self.tag = tag
            self.position = position
        }
    }

    @usableFromInline static var empty: Int32 { -1 }

    @usableFromInline var slots: UnsafeMutablePointer<Slot>
    @usableFromInline var capacity: Int
    @usableFromInline var shift: UInt64
    @usableFromInline var count: Int
    @usableFromInline var growthLimit: Int
    /// The slots read so far, by lookups and by growing.
    @usableFromInline var probes: Int
    /// The probes allowed so far: ``probeBudgetPerCall`` for every lookup
    /// and for every entry moved by growing, plus ``probeAllowance``.
    @usableFromInline var probeLimit: Int

    /// The probes a lookup, or an entry moved by growing, may take on
    /// average before the table counts as flooded: about twice the most
    /// that hashing at random gives, the inserts while the table fills from
    /// three eighths to three quarters before growing
    /// (½ + ½ · (1/¼ − 1/⅝) / ⅜ ≈ 3.7 each).
    @usableFromInline static var probeBudgetPerCall: Int { 8 }
    /// Probes allowed whatever the number of calls, for small tables,
    /// where a few unlucky clusters weigh more.
    @usableFromInline static var probeAllowance: Int { 1_024 }

    /// Creates a table sized for `expectedCount` entries without growing.
    @inlinable
    init(expectedCount: Int) {
        var capacity = 16
        var bits: UInt64 = 4
        let wanted = expectedCount + expectedCount / 2
        while capacity < wanted {
            capacity &<<= 1
            bits += 1
        }
        self.capacity = capacity
        self.shift = 64 - bits
        self.count = 0
        self.growthLimit = capacity / 4 * 3
        self.probes = 0
        self.probeLimit = Self.probeAllowance
        self.slots = .allocate(capacity: capacity)
        slots.initialize(repeating: Slot(tag: 0, position: Self.empty), count: capacity)
    }

    /// Frees the slots. The table must not be used afterwards.
    @inlinable
    func deallocate() {
        slots.deallocate()
    }

    /// Returns the position stored for the id whose hash is `hash` (a slot
    /// counts only when `isID` confirms its position holds that id), or
    /// stores `position` and returns `-1`. The caller grows the table when
    /// ``isOverloaded``.
    ///
    /// - Complexity: O(1) expected.
    @inlinable
    mutating func findOrInsert(hash: UInt64, position: Int32, isID: (Int32) -> Bool) -> Int32 {
        let mixed = hash &* 0x9E37_79B9_7F4A_7C15
        let tag = UInt32(truncatingIfNeeded: mixed)
        let mask = capacity &- 1
        var index = Int(truncatingIfNeeded: mixed &>> shift)
        probeLimit &+= Self.probeBudgetPerCall
        while true {
            probes &+= 1
            let slot = slots[index]
            if slot.position == Self.empty {
                slots[index] = Slot(tag: tag, position: position)
                count &+= 1
                return Self.empty
            }
            if slot.tag == tag && isID(slot.position) {
                return slot.position
            }
            index = (index &+ 1) & mask
        }
    }

    /// Whether the table is more than three quarters full.
    @inlinable
    var isOverloaded: Bool { count > growthLimit }

    /// Whether the lookups and growing so far have read more slots than
    /// hashing at random would have (see ``probeBudgetPerCall``).
    @inlinable
    var isFlooded: Bool { probes > probeLimit }

    /// Doubles the capacity. Homes come from the top bits of the mixed hash,
    /// which the slots do not keep, so each entry's hash is recomputed by
    /// `hashOf` from its position.
    @inlinable
    mutating func grow(hashOf: (Int32) -> UInt64) {
        let oldSlots = slots
        let oldCapacity = capacity
        capacity &<<= 1
        shift -= 1
        growthLimit = capacity / 4 * 3
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: Slot(tag: 0, position: Self.empty), count: capacity)
        let mask = capacity &- 1
        probeLimit &+= count &* Self.probeBudgetPerCall
        for i in 0..<oldCapacity where oldSlots[i].position != Self.empty {
            let mixed = hashOf(oldSlots[i].position) &* 0x9E37_79B9_7F4A_7C15
            var index = Int(truncatingIfNeeded: mixed &>> shift)
            probes &+= 1
            while slots[index].position != Self.empty {
                index = (index &+ 1) & mask
                probes &+= 1
            }
            slots[index] = oldSlots[i]
        }
        oldSlots.deallocate()
    }
}
