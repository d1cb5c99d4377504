#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TesseraDiff

/// The frame store a layout keeps during a batch update: the store before
/// it, to animate moved and shifted elements from where they were.
///
/// Keeping it copies nothing: a store holds its sections by reference and
/// never changes a section once laid out, so the store after the batch
/// shares every section it keeps with this one, and only the sections the
/// batch lays out again exist twice until the batch ends.
struct _UpdateBuffers {
    private(set) var previous: _FrameStore?

    /// At the start of a batch: keeps the current store as the previous one.
    ///
    /// - Complexity: O(1).
    mutating func capture(_ store: _FrameStore) {
        previous = store
    }

    /// At the end of a batch: forgets the previous store.
    mutating func finish() {
        previous = nil
    }

    /// Where an item (index path after the batch) was before it.
    func previousItem(at indexPath: IndexPath, mapping: BatchIndexMapping?) -> LayoutAttributes? {
        previous?.previousAttributes(forItemAt: indexPath, mapping: mapping)
    }

    /// Where a header or footer (index path after the batch) was before it.
    func previousSupplementary(ofKind kind: String, at indexPath: IndexPath, mapping: BatchIndexMapping?) -> LayoutAttributes? {
        previous?.previousAttributes(forSupplementaryOfKind: kind, at: indexPath, mapping: mapping)
    }
}
