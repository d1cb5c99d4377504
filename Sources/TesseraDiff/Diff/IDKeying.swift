#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How the ids of one type are hashed for an ``_IDTable``.
///
/// Integer and UUID ids are mixed from their bits, which is several times
/// cheaper than `Hasher`; any other `Hashable` id uses its `hashValue`. The
/// table confirms every candidate with `==`, so a hash only has to spread
/// well, never to be unique.
@usableFromInline
protocol _IDHashing {
    associatedtype ID: Hashable
    static func hash(_ id: ID) -> UInt64
}

/// Ids that are 64-bit integers (`Int`, `UInt`, `Int64`, `UInt64`).
@usableFromInline
enum _WordHashing<ID: Hashable>: _IDHashing {
    @inlinable static func hash(_ id: ID) -> UInt64 {
        let bits = unsafeBitCast(id, to: UInt64.self)
        return bits ^ (bits &>> 29)
    }
}

/// `UUID` ids: both halves of the 128 bits, folded.
@usableFromInline
enum _UUIDHashing<ID: Hashable>: _IDHashing {
    @usableFromInline
    struct Halves {
        @usableFromInline var low: UInt64
        @usableFromInline var high: UInt64
    }

    @inlinable static func hash(_ id: ID) -> UInt64 {
        let halves = unsafeBitCast(id, to: Halves.self)
        return halves.low ^ (halves.high &* 0xC2B2_AE3D_27D4_EB4F) ^ (halves.high &>> 31)
    }
}

/// Any other `Hashable` id.
@usableFromInline
enum _HashValueHashing<ID: Hashable>: _IDHashing {
    @inlinable static func hash(_ id: ID) -> UInt64 {
        UInt64(UInt(bitPattern: id.hashValue))
    }
}

/// Which hashing serves an id type; decided once per diff, and folded away
/// when the diff is specialized for a concrete id type.
@usableFromInline
enum _HashingChoice {
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
