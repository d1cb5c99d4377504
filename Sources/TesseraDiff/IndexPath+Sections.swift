#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

#if !canImport(UIKit)
extension IndexPath {
    /// Creates an index path that names an item in a section, as UIKit does.
    ///
    /// ```swift
    /// let path = IndexPath(item: 3, section: 1)   // [1, 3]
    /// ```
    public init(item: Int, section: Int) {
        // One index, then a second: the two-index storage, with no array.
        self.init(index: section)
        append(item)
    }

    /// The section of a two-element index path (its first index).
    public var section: Int {
        get { self[0] }
        set { self[0] = newValue }
    }

    /// The item of a two-element index path (its second index).
    ///
    /// A section-level index path (one index) has no item; check `count`
    /// before reading it.
    public var item: Int {
        get { self[1] }
        set { self[1] = newValue }
    }
}
#endif

extension IndexPath {
    /// A readable form used in error messages: `[section 1, item 3]`, or
    /// `[section 1]` for a section-level path.
    package var tesseraDescription: String {
        switch count {
        case 1: return "[section \(self[0])]"
        case 2: return "[section \(self[0]), item \(self[1])]"
        default: return "\(Array(self))"
        }
    }
}
