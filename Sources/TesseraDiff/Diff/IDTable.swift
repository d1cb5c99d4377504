/// An open-addressing hash table from ids to integer positions, built for
/// one diff and freed at its end.
///
/// Slots hold the key inline with its value, so a probe touches one cache
/// line. Values are positions: `>= 0` for an old element, `<= -2` for a new
/// element with no old counterpart (`-(offset + 2)`), and `-1` marks an empty
/// slot. Linear probing over a power-of-two capacity with Fibonacci hashing;
/// the table grows when three quarters full.
@usableFromInline
struct _IDTable<K: _IDKeying>: ~Copyable {
    @usableFromInline
    struct Slot {
        @usableFromInline var key: K.Key
        @usableFromInline var value: Int

        @inlinable init(key: K.Key, value: Int) {
            self.key = key
            self.value = value
        }
    }

    @usableFromInline static var empty: Int { -1 }

    @usableFromInline var slots: UnsafeMutablePointer<Slot>
    @usableFromInline var capacity: Int
    @usableFromInline var shift: UInt64
    @usableFromInline var count: Int
    @usableFromInline var growthLimit: Int

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
        self.slots = .allocate(capacity: capacity)
        slots.initialize(repeating: Slot(key: .zero, value: Self.empty), count: capacity)
    }

    deinit {
        slots.deallocate()
    }

    @inlinable
    func home(of hash: UInt64) -> Int {
        Int(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15) &>> shift)
    }

    /// Returns the value stored for `key` (confirmed by `sameID` when the
    /// keying is not exact), or stores `value` and returns `-1`.
    ///
    /// - Complexity: O(1) expected.
    @inlinable
    mutating func findOrInsert(_ key: K.Key, value: Int, sameID: (Int) -> Bool) -> Int {
        let mask = capacity - 1
        var index = home(of: K.hash(key))
        while true {
            let slot = slots[index]
            if slot.value == Self.empty {
                slots[index] = Slot(key: key, value: value)
                count += 1
                if count > growthLimit { grow() }
                return Self.empty
            }
            if slot.key == key && (K.isExact || sameID(slot.value)) {
                return slot.value
            }
            index = (index &+ 1) & mask
        }
    }

    @usableFromInline
    mutating func grow() {
        let oldSlots = slots
        let oldCapacity = capacity
        capacity &<<= 1
        shift -= 1
        growthLimit = capacity / 4 * 3
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: Slot(key: .zero, value: Self.empty), count: capacity)
        let mask = capacity - 1
        for i in 0..<oldCapacity where oldSlots[i].value != Self.empty {
            var index = home(of: K.hash(oldSlots[i].key))
            while slots[index].value != Self.empty { index = (index &+ 1) & mask }
            slots[index] = oldSlots[i]
        }
        oldSlots.deallocate()
    }
}
