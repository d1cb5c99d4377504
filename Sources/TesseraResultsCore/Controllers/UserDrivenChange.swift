#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import TesseraDiff

/// A change the view already shows because the user made it there — a
/// row dragged to a new place, a title edited in place — declared to a
/// controller with `performUserDrivenChange(_:isolation:write:)` around
/// the write that stores it (see <doc:UserDrivenChanges>).
///
/// The controller's report for that write starts from the state the view
/// shows (its result with this change applied), so it says only what the
/// view does not show yet.
public enum UserDrivenChange<Item: Identifiable> {
    /// The item at `from` now shows at `to`, as UIKit's
    /// `collectionView(_:moveItemAt:to:)` means it: the item is taken out
    /// at `from`, and `to` is its place once it is out (in the same section
    /// `0..<count`; in another section `0...count`).
    case move(from: IndexPath, to: IndexPath)
    /// The item at an index path shows `item`: its content as the user
    /// edited it, with the same id.
    case update(at: IndexPath, to: Item)
}

extension UserDrivenChange: Sendable where Item: Sendable {}

extension UserDrivenChange {
    /// The change as a changeset of the state before it: a move or an
    /// update of one item.
    public var changeset: Changeset {
        var changeset = Changeset()
        switch self {
        case let .move(from, to): changeset.itemMoves = [Move(from: from, to: to)]
        case let .update(at, _): changeset.itemUpdates = [Move(from: at, to: at)]
        }
        return changeset
    }

    /// Checks the change against a result's counts, then gives the flat
    /// offsets it takes: the item's offset before, and its offset once
    /// moved, with the section starts after.
    ///
    /// - Parameter starts: Each section's first flat offset, then the count.
    /// - Throws: ``UserDrivenChangeError`` naming the index path out of range.
    /// - Complexity: O(*s*) for *s* sections.
    func place(in starts: [Int]) throws(UserDrivenChangeError) -> (from: Int, to: Int, startsAfter: [Int]) {
        let sections = starts.count - 1
        func count(_ s: Int) -> Int { starts[s + 1] - starts[s] }
        func holds(_ path: IndexPath) -> Bool {
            path.count == 2 && path[0] >= 0 && path[0] < sections && path[1] >= 0 && path[1] < count(path[0])
        }
        switch self {
        case let .update(at, _):
            guard holds(at) else { throw .indexPathOutOfRange(at, role: .updated, itemCounts: itemCounts(starts)) }
            let flat = starts[at[0]] + at[1]
            return (flat, flat, starts)
        case let .move(from, to):
            guard holds(from) else { throw .indexPathOutOfRange(from, role: .source, itemCounts: itemCounts(starts)) }
            guard to.count == 2, to[0] >= 0, to[0] < sections, to[1] >= 0,
                  to[1] <= count(to[0]) - (to[0] == from[0] ? 1 : 0)
            else { throw .indexPathOutOfRange(to, role: .destination, itemCounts: itemCounts(starts)) }
            var after = starts
            for s in (from[0] + 1)..<after.count { after[s] -= 1 }
            for s in (to[0] + 1)..<after.count { after[s] += 1 }
            return (starts[from[0]] + from[1], after[to[0]] + to[1], after)
        }
    }

    /// Applies the change to flat storage placed by ``place(in:)``.
    ///
    /// - Complexity: O(*n*).
    static func move<T>(_ elements: inout [T], from: Int, to: Int) {
        guard from != to else { return }
        let element = elements.remove(at: from)
        elements.insert(element, at: to)
    }

    private func itemCounts(_ starts: [Int]) -> [Int] {
        zip(starts.dropFirst(), starts).map { $0 - $1 }
    }
}

/// A user-driven change a controller refuses; nothing is written, run or
/// reported, and the controller is as it was.
public enum UserDrivenChangeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Which index path of a ``UserDrivenChange`` is out of range.
    public enum Role: String, Hashable, Sendable {
        /// The item a move takes (`from`).
        case source
        /// The place a move puts it (`to`).
        case destination
        /// The item an update changes.
        case updated
    }

    /// An index path of the change names no item (or, for a move's
    /// destination, no place) of the controller's result, whose sections
    /// hold `itemCounts` items.
    case indexPathOutOfRange(IndexPath, role: Role, itemCounts: [Int])
    /// An update gives an item whose id is not the one at its index path.
    case updateChangesIdentity(IndexPath)
    /// A user-driven change is already under way on this controller (they
    /// do not nest: declare the whole change the view shows in one).
    case nested
    /// The controller is between `beginEditing()` and `endEditing()`: its
    /// last report is not the state the view shows.
    case editingInProgress
    /// The controller cannot take this change (`reason` says why), rather
    /// than report it wrongly.
    case unsupported(reason: String)

    /// What was refused, and where.
    public var description: String {
        switch self {
        case let .indexPathOutOfRange(path, role, counts):
            let place = role == .destination ? "place" : "item"
            return "the \(role.rawValue) index path [\(path.map(String.init).joined(separator: ", "))] of the user-driven change names no \(place) of the result (its sections hold \(counts) items)"
        case let .updateChangesIdentity(path):
            return "the user-driven update at [\(path.map(String.init).joined(separator: ", "))] gives an item with another id than the one there"
        case .nested:
            return "a user-driven change is already under way on this controller: declare the whole change in one call"
        case .editingInProgress:
            return "the controller is between beginEditing() and endEditing(): declare a user-driven change outside an editing batch"
        case let .unsupported(reason):
            return "the user-driven change cannot be taken: \(reason)"
        }
    }
}

extension Snapshot {
    /// This snapshot with a change the view shows applied.
    ///
    /// - Throws: ``UserDrivenChangeError`` for index paths out of range, or
    ///   an update that changes an id.
    /// - Complexity: O(*n*).
    func applying(_ change: UserDrivenChange<Item>) throws(UserDrivenChangeError) -> Snapshot {
        var starts = [0]
        starts.reserveCapacity(numberOfSections + 1)
        for count in itemCounts { starts.append(starts[starts.count - 1] + count) }
        let (from, to, startsAfter) = try change.place(in: starts)
        var items = allItems
        switch change {
        case .move:
            UserDrivenChange<Item>.move(&items, from: from, to: to)
        case let .update(at, item):
            guard items[from].id == item.id else { throw .updateChangesIdentity(at) }
            items[from] = item
        }
        return Snapshot(sections: sections, flatItems: items, sectionStarts: startsAfter)
    }
}
