#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TesseraDiff

extension _FrameStore {
    /// The attributes an item had in this (earlier) store, given the item's
    /// index path after an update and the update's mapping: what UIKit's
    /// flow layout returns as the initial attributes of an item that moves
    /// or shifts.
    func previousAttributes(forItemAt indexPath: IndexPath, mapping: BatchIndexMapping?) -> LayoutAttributes? {
        guard let old = mapping?.indexPathBefore(indexPath), let frame = itemFrame(at: old) else { return nil }
        return .cell(at: indexPath, frame: frame)
    }

    /// The attributes a header or footer had in this (earlier) store, given
    /// its index path after an update.
    func previousAttributes(forSupplementaryOfKind kind: String, at indexPath: IndexPath, mapping: BatchIndexMapping?) -> LayoutAttributes? {
        guard indexPath.count >= 1, let section = mapping?.sectionBefore(indexPath[0]), section < numberOfSections else { return nil }
        let frame: Rect?
        switch kind {
        case ElementKind.sectionHeader: frame = headerFrame(section)
        case ElementKind.sectionFooter: frame = footerFrame(section)
        default: frame = nil
        }
        return frame.map { .supplementaryView(ofKind: kind, at: indexPath, frame: $0) }
    }
}
