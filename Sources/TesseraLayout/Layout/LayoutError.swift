#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A value a layout cannot use: a size, inset or spacing that is negative,
/// NaN, infinite or beyond 10¹² points, or a negative item count, named with
/// where it came from.
///
/// A layout does not trap on such a value: ``CollectionViewLayout/prepare()``
/// records the first one in ``CollectionViewLayout/layoutError`` and lays the
/// element out with zero in its place, so no frame is ever NaN.
public struct LayoutError: Error, Hashable, Sendable {
    /// What the bad value is.
    public enum Subject: Hashable, Sendable {
        /// An item's size.
        case itemSize(IndexPath)
        /// A section's insets.
        case sectionInset(section: Int)
        /// A section's spacing between lines (or items, in a list).
        case lineSpacing(section: Int)
        /// A section's spacing between items on a line.
        case interitemSpacing(section: Int)
        /// A section's header size.
        case headerSize(section: Int)
        /// A section's footer size.
        case footerSize(section: Int)
        /// A section's number of items, as the environment reported it.
        case itemCount(section: Int)
        /// A layout-wide property, by name.
        case property(String)
    }

    /// Which value is bad.
    public var subject: Subject
    /// The bad value, as text.
    public var value: String

    /// Creates an error.
    public init(subject: Subject, value: String) {
        self.subject = subject
        self.value = value
    }
}

extension LayoutError: CustomStringConvertible {
    /// A sentence naming the value and where it came from.
    public var description: String {
        let what: String
        switch subject {
        case let .itemSize(path): what = "the size of item \(path.count > 1 ? path[1] : 0) in section \(path.count > 0 ? path[0] : 0)"
        case let .sectionInset(section): what = "the inset of section \(section)"
        case let .lineSpacing(section): what = "the line spacing of section \(section)"
        case let .interitemSpacing(section): what = "the interitem spacing of section \(section)"
        case let .headerSize(section): what = "the header size of section \(section)"
        case let .footerSize(section): what = "the footer size of section \(section)"
        case let .itemCount(section): what = "the number of items in section \(section)"
        case let .property(name): what = "the layout's \(name)"
        }
        return "invalid layout value: \(what) is \(value); sizes, insets and spacings must be finite, not negative and at most 10^12 points"
    }
}
