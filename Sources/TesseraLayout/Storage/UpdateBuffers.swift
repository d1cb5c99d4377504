#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TesseraDiff

/// The frame stores a layout keeps around batch updates: the store before
/// the batch in progress (copy-on-write, so keeping it is free), to animate
/// moved and shifted elements from where they were; and the buffers of the
/// store before the last batch, reused to lay out the next batch's new state
/// so that a batch neither allocates nor faults in a second copy of the
/// frames.
struct _UpdateBuffers {
    private(set) var previous: _FrameStore?
    private(set) var spare: _FrameStore?

    /// At the start of a batch: keeps the current store as the previous one.
    mutating func capture(_ store: _FrameStore) {
        previous = store
    }

    /// Before a batch's prepare writes to `store`: when it shares its buffers
    /// with the previous store, moves it to the spare buffers, keeping its
    /// first `sections` sections, instead of letting copy-on-write allocate.
    mutating func takeSpare(for store: inout _FrameStore, keepingSections sections: Int) {
        guard previous != nil, var buffers = spare else { return }
        spare = nil
        if sections == 0 {
            buffers.direction = store.direction
        } else {
            buffers.assignPrefix(of: store, sections: Swift.min(sections, store.numberOfSections))
        }
        store = buffers
    }

    /// At the end of a batch: the previous store's buffers become the spare.
    mutating func finish() {
        spare = previous
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

    /// The bytes the spare buffers reserve.
    var spareByteCount: Int { spare?.byteCount ?? 0 }
}
