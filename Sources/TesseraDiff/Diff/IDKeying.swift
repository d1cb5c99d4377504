#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A fixed-size, trivially copyable key stored inline in an ``_IDTable`` slot.
@usableFromInline
protocol _IDTableKey: Equatable, BitwiseCopyable {
    /// The key written into empty slots; never read as a key.
    static var zero: Self { get }
}

extension UInt64: _IDTableKey {
    @inlinable static var zero: UInt64 { 0 }
}

/// A 128-bit key: two words, compared as a whole.
@usableFromInline
struct _Word128: _IDTableKey {
    @usableFromInline var low: UInt64
    @usableFromInline var high: UInt64

    @inlinable init(low: UInt64, high: UInt64) {
        self.low = low
        self.high = high
    }

    @inlinable static var zero: _Word128 { _Word128(low: 0, high: 0) }
}

/// How the ids of one type become table keys and hashes.
///
/// An *exact* keying maps distinct ids to distinct keys, so equal keys prove
/// equal ids and the table never reads the ids back. A keying that is not
/// exact stores a hash and confirms a candidate by comparing ids.
@usableFromInline
protocol _IDKeying {
    associatedtype ID: Hashable
    associatedtype Key: _IDTableKey
    static var isExact: Bool { get }
    static func key(for id: ID) -> Key
    static func hash(_ key: Key) -> UInt64
}

/// Ids that are 64-bit integers (`Int`, `UInt`, `Int64`, `UInt64`): the key is
/// the bit pattern itself.
@usableFromInline
enum _WordKeying<ID: Hashable>: _IDKeying {
    @inlinable static var isExact: Bool { true }

    @inlinable static func key(for id: ID) -> UInt64 {
        unsafeBitCast(id, to: UInt64.self)
    }

    @inlinable static func hash(_ key: UInt64) -> UInt64 {
        key ^ (key >> 29)
    }
}

/// `UUID` ids: the key is the UUID's 128 bits.
@usableFromInline
enum _UUIDKeying<ID: Hashable>: _IDKeying {
    @inlinable static var isExact: Bool { true }

    @inlinable static func key(for id: ID) -> _Word128 {
        unsafeBitCast(id, to: _Word128.self)
    }

    @inlinable static func hash(_ key: _Word128) -> UInt64 {
        key.low ^ (key.high &* 0xC2B2_AE3D_27D4_EB4F) ^ (key.high >> 31)
    }
}

/// Any other `Hashable` id: the key is its `hashValue`, and a candidate is
/// confirmed with `==`.
@usableFromInline
enum _HashedKeying<ID: Hashable>: _IDKeying {
    @inlinable static var isExact: Bool { false }

    @inlinable static func key(for id: ID) -> UInt64 {
        UInt64(UInt(bitPattern: id.hashValue))
    }

    @inlinable static func hash(_ key: UInt64) -> UInt64 { key }
}

/// Which keying serves an id type; decided once per diff, folded away when the
/// diff is specialized.
@usableFromInline
enum _KeyingChoice {
    case word, uuid, hashed

    @inlinable
    static func choose<ID: Hashable>(for _: ID.Type) -> _KeyingChoice {
        if ID.self == Int.self || ID.self == UInt.self || ID.self == Int64.self || ID.self == UInt64.self {
            return .word
        }
        if ID.self == UUID.self && MemoryLayout<UUID>.size == MemoryLayout<_Word128>.size {
            return .uuid
        }
        return .hashed
    }
}
