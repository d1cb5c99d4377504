import TesseraLayout
import TesseraRender

/// The layouts the commands can lay a snapshot out with, and the viewport.
package struct LayoutChoice: Hashable, Sendable {
    /// A layout family.
    package enum Kind: String, Hashable, Sendable, CaseIterable {
        /// `FlowLayout`: a grid of 96-point squares, 2 points apart, with
        /// 32-point section headers (a photo grid).
        case flow
        /// `ListLayout`: 44-point rows with 28-point section headers.
        case list
        /// `ColumnLayout`: two columns of 120-point items with 28-point
        /// headers.
        case column
    }

    /// The layout family.
    package var kind: Kind
    /// The viewport's width.
    package var width: Double
    /// The viewport's height.
    package var height: Double

    /// Creates a choice; a phone-sized 390×844 viewport unless given.
    package init(kind: Kind, width: Double = 390, height: Double = 844) {
        self.kind = kind
        self.width = width
        self.height = height
    }

    /// The largest width or height a viewport may have, in points.
    package static let maximumSide: Double = 100_000

    /// Checks the viewport.
    ///
    /// - Throws: ``CommandError`` naming the bad dimension.
    package func validate() throws(CommandError) {
        try Self.validate(width: width, height: height)
    }

    /// Checks a viewport's sides as `--width` and `--height` give them
    /// (`nil`: not given): each must be a positive number up to
    /// ``maximumSide``. Every command that takes them checks them here.
    ///
    /// - Throws: ``CommandError`` naming the bad option and its value.
    package static func validate(width: Double?, height: Double?) throws(CommandError) {
        for (name, value) in [("width", width), ("height", height)] {
            guard let value, !(value.isFinite && value > 0 && value <= maximumSide) else { continue }
            throw CommandError("--\(name) \(Format.number(value)): the viewport's \(name) must be a positive number up to \(Format.number(maximumSide))", exitCode: CommandError.usageExitCode)
        }
    }

    /// The viewport size.
    package var size: Size { Size(width: width, height: height) }

    /// A new layout of this family.
    package func makeLayout() -> CollectionViewLayout {
        switch kind {
        case .flow:
            let layout = FlowLayout()
            layout.itemSize = Size(width: 96, height: 96)
            layout.minimumInteritemSpacing = 2
            layout.minimumLineSpacing = 2
            layout.headerReferenceSize = Size(width: 0, height: 32)
            return layout
        case .list:
            let layout = ListLayout()
            layout.itemHeight = 44
            layout.headerHeight = 28
            return layout
        case .column:
            let layout = ColumnLayout()
            layout.columnCount = 2
            layout.itemHeight = 120
            layout.headerHeight = 28
            return layout
        }
    }
}
