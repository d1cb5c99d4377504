#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The secret that keys the hashing of integer and `UUID` ids, drawn once
/// per process from the system's random number generator, as `Hasher`'s
/// seed is.
///
/// Without a secret, anyone who chooses ids (a server that diffs lists its
/// clients send, rows whose keys users pick) could compute ids that all
/// land in one slot of the diff's ``_IDTable`` and make matching quadratic.
/// The diff's output never depends on the key: the table is only asked
/// whether an id is present, and no output is read from it in slot order.
@usableFromInline
package struct _IDHashKey: Sendable {
    /// Xored into an id's first 64 bits.
    @usableFromInline package var k0: UInt64
    /// What an integer id's bits are multiplied by.
    @usableFromInline package var k1: UInt64
    /// Xored into a `UUID`'s second 64 bits.
    @usableFromInline package var k2: UInt64

    /// A key drawn from `generator`.
    package init<G: RandomNumberGenerator>(using generator: inout G) {
        k0 = generator.next()
        k1 = generator.next()
        k2 = generator.next()
    }

    /// This process's key.
    @usableFromInline
    package static let process: _IDHashKey = {
        var generator = SystemRandomNumberGenerator()
        return _IDHashKey(using: &generator)
    }()
}

/// The folded multiply: the full 128-bit product of two words, its halves
/// xored. Each bit of the result depends on most bits of both factors, and
/// one multiplication gives it (the core of wyhash, rapidhash and foldhash).
@inlinable @inline(__always)
func _foldedMultiply(_ a: UInt64, _ b: UInt64) -> UInt64 {
    let product = a.multipliedFullWidth(by: b)
    return product.high ^ product.low
}

/// How the ids of one type are hashed for an ``_IDTable``.
///
/// Integer and UUID ids are mixed from their bits with the process's
/// ``_IDHashKey``, several times cheaper than `Hasher`; any other `Hashable`
/// id uses its `hashValue` (`Hasher`, which has a per-process seed of its
/// own). The table confirms every candidate with `==`, so a hash only has to
/// spread well, never to be unique.
@usableFromInline
protocol _IDHashing {
    associatedtype ID: Hashable
    static func hash(_ id: ID, key: _IDHashKey) -> UInt64
    /// Whether a diff that finds its table flooded (probe sequences far
    /// longer than hashing at random gives) starts again with `Hasher`.
    static var fallsBackToHasher: Bool { get }
}

/// Ids that are 64-bit integers (`Int`, `UInt`, `Int64`, `UInt64`): the bits
/// xored with `k0`, folded-multiplied by `k1`.
///
/// The multiplication by a secret is what makes the key matter: after a
/// xor alone, two ids that differ in some bits would still differ in the
/// same bits, whatever the key, going into a fixed function.
@usableFromInline
enum _WordHashing<ID: Hashable>: _IDHashing {
    @inlinable static func hash(_ id: ID, key: _IDHashKey) -> UInt64 {
        let bits = unsafeBitCast(id, to: UInt64.self)
        return _foldedMultiply(bits ^ key.k0, key.k1)
    }

    @inlinable static var fallsBackToHasher: Bool { true }
}

/// `UUID` ids: the first 64 bits xored with `k0`, folded-multiplied by the
/// second 64 bits xored with `k2` (as foldhash hashes 128 bits).
@usableFromInline
enum _UUIDHashing<ID: Hashable>: _IDHashing {
    @usableFromInline
    struct Halves {
        @usableFromInline var low: UInt64
        @usableFromInline var high: UInt64
    }

    @inlinable static func hash(_ id: ID, key: _IDHashKey) -> UInt64 {
        let halves = unsafeBitCast(id, to: Halves.self)
        return _foldedMultiply(halves.low ^ key.k0, halves.high ^ key.k2)
    }

    @inlinable static var fallsBackToHasher: Bool { true }
}

/// Any other `Hashable` id, and integer and `UUID` ids in a diff that found
/// its table flooded.
///
/// `Hasher` is seeded per process, so this path is as safe as the id's
/// `hash(into:)` is: one that feeds all of the id, as the standard library's
/// and Foundation's types do, leaves nothing to aim at; one that drops part
/// of it lets ids collide whatever the seed, in this table as in a
/// `Dictionary`.
@usableFromInline
enum _HashValueHashing<ID: Hashable>: _IDHashing {
    @inlinable static func hash(_ id: ID, key _: _IDHashKey) -> UInt64 {
        UInt64(UInt(bitPattern: id.hashValue))
    }

    @inlinable static var fallsBackToHasher: Bool { false }
}

/// Which hashing serves an id type; decided once per diff, and folded away
/// when the diff is specialized for a concrete id type.
@usableFromInline
package enum _HashingChoice: Sendable {
    case word, uuid, hashValue

    @inlinable
    static func choose<ID: Hashable>(for _: ID.Type) -> _HashingChoice {
        if ID.self == Int.self || ID.self == UInt.self || ID.self == Int64.self || ID.self == UInt64.self {
            return .word
        }
        if ID.self == UUID.self && MemoryLayout<UUID>.size == 16 {
            return .uuid
        }
        return .hashValue
    }
}
