import Foundation
import TesseraDiff
import TesseraLayout
import TesseraRender
import TesseraResults
import TesseraView

/// The live list's encoder: ``PlanJSON``, the one writer of plan JSON, with
/// what the protocol's messages add (elements with their content, sections,
/// ids, changesets).
package typealias ServeEncoder = PlanJSON

/// What the live list's messages write beyond plans.
///
/// The list is read from the controller's results record by record
/// (O(log *n*) each), so that a message costs what it writes, never a copy
/// of the whole list.
extension PlanJSON {
    /// The list's state.
    package typealias ListResult = FetchedResult<ServeRecord>

    // MARK: Elements

    /// The content of an element: its key, kind, index path, title and
    /// colour, read from the result it belongs to; nil for footers,
    /// decorations and index paths the result does not have.
    ///
    /// - Complexity: O(log *n*).
    package static func content(
        of attributes: LayoutAttributes, at path: IndexPath, in result: ListResult, sectionName: ServeSectionNaming
    ) -> ElementContent? {
        guard path.count >= 1, path[0] >= 0, path[0] < result.numberOfSections else { return nil }
        let section = path[0]
        switch attributes.category {
        case .cell:
            guard path.count == 2, path[1] >= 0, path[1] < result.numberOfRecords(inSection: section) else { return nil }
            // A lazy list that cannot read the record (the store failed, or
            // a row deleted since, read before the change is taken) has no
            // content to show: the element is left out.
            guard let record = try? result.record(at: path) else { return nil }
            return ElementContent(key: "i:" + record.id, isItem: true, section: section, item: path[1], title: record.title, colour: Self.colour(of: record.id))
        case .supplementaryView(ElementKind.sectionHeader):
            let name = sectionName(result.sections[section].value)
            return ElementContent(key: "h:" + name, isItem: false, section: section, item: 0, title: name, colour: nil)
        default:
            return nil
        }
    }

    /// What an Element shows besides its geometry.
    package struct ElementContent {
        package var key: String
        package var isItem: Bool
        package var section: Int
        package var item: Int
        package var title: String
        package var colour: String?
    }

    /// Writes the members an Element has (without its braces).
    private mutating func elementMembers(_ content: ElementContent, frame: Rect, z: Int, selected: Bool) {
        text += "\"key\":"; string(content.key)
        text += content.isItem ? ",\"kind\":\"item\",\"section\":" : ",\"kind\":\"header\",\"section\":"
        int(content.section)
        if content.isItem { text += ",\"item\":"; int(content.item) }
        text += ",\"frame\":"; rect(frame)
        text += ",\"z\":"; int(z)
        text += ",\"title\":"; string(content.title)
        if let colour = content.colour { text += ",\"colour\":"; string(colour) }
        text += ",\"selected\":"; bool(selected)
    }

    /// Writes an array of Elements for `attributes` in `result`.
    ///
    /// - Complexity: O(*v* log *n*) for *v* attributes.
    package mutating func elements(_ attributes: [LayoutAttributes], in result: ListResult, sectionName: ServeSectionNaming) {
        text += "["
        var first = true
        for element in attributes {
            guard let content = Self.content(of: element, at: element.indexPath, in: result, sectionName: sectionName) else { continue }
            if !first { text += "," }
            first = false
            text += "{"
            elementMembers(content, frame: element.frame, z: element.zIndex, selected: false)
            text += "}"
        }
        text += "]"
    }

    /// Writes the plan's elements (PlanElements) and returns the keys of
    /// those that move.
    ///
    /// - Complexity: O(*e* log *n*) for *e* plan elements.
    package mutating func planElements(
        _ plan: AnimationPlan, old: ListResult, new: ListResult, sectionName: ServeSectionNaming
    ) -> [String] {
        var moves: [String] = []
        text += "["
        var first = true
        for element in plan.elements {
            let content: ElementContent?
            if let after = element.indexPathAfter, element.disposition != .delete {
                content = Self.content(of: element.to, at: after, in: new, sectionName: sectionName)
            } else if let before = element.indexPathBefore {
                content = Self.content(of: element.from, at: before, in: old, sectionName: sectionName)
            } else {
                content = nil
            }
            guard let content else { continue }
            if !first { text += "," }
            first = false
            text += "{"
            elementMembers(content, frame: element.to.frame, z: element.to.zIndex, selected: element.isSelected)
            elementMotion(element)
            text += "}"
            if element.disposition == .move { moves.append(content.key) }
        }
        text += "]"
        return moves
    }

    /// Writes `[{"id": …, "count": …}, …]`.
    ///
    /// - Complexity: O(*s*) for *s* sections.
    package mutating func sections(_ result: ListResult, sectionName: ServeSectionNaming) {
        text += "["
        for (index, section) in result.sections.enumerated() {
            if index > 0 { text += "," }
            text += "{\"id\":"; string(sectionName(section.value))
            text += ",\"count\":"; int(result.numberOfRecords(inSection: index))
            text += "}"
        }
        text += "]"
    }

    /// Writes every item id, section by section.
    ///
    /// - Complexity: O(*n* log *n*).
    package mutating func ids(_ result: ListResult) {
        text += "["
        for section in 0..<result.numberOfSections {
            if section > 0 { text += "," }
            itemIDs(inSection: section, of: result)
        }
        text += "]"
    }

    /// Writes the ids of a section's items, as an array.
    ///
    /// - Complexity: O(*k* log *n*) for *k* items.
    private mutating func itemIDs(inSection section: Int, of result: ListResult) {
        text += "["
        for item in 0..<result.numberOfRecords(inSection: section) {
            if item > 0 { text += "," }
            string(result.id(at: IndexPath(item: item, section: section)) ?? "")
        }
        text += "]"
    }

    /// Writes a changeset with the ids a replica needs: inserted sections
    /// with their ids and items, inserted items with their ids.
    ///
    /// - Complexity: O(*c* log *n*) for a changeset of *c* entries and
    ///   items of inserted sections.
    package mutating func changeset(_ changeset: Changeset, new: ListResult, sectionName: ServeSectionNaming) {
        text += "{\"sectionDeletes\":["
        for (i, index) in changeset.sectionDeletes.enumerated() {
            if i > 0 { text += "," }
            int(index)
        }
        text += "],\"sectionInserts\":["
        for (i, index) in changeset.sectionInserts.enumerated() {
            if i > 0 { text += "," }
            text += "{\"index\":"; int(index)
            text += ",\"id\":"; string(sectionName(new.sections[index].value))
            text += ",\"ids\":"
            itemIDs(inSection: index, of: new)
            text += "}"
        }
        text += "],\"sectionMoves\":"
        pairs(changeset.sectionMoves.map { ($0.from, $0.to) })
        text += ",\"itemDeletes\":["
        for (i, path) in changeset.itemDeletes.enumerated() {
            if i > 0 { text += "," }
            self.path(path)
        }
        text += "],\"itemInserts\":["
        for (i, path) in changeset.itemInserts.enumerated() {
            if i > 0 { text += "," }
            text += "{\"at\":"; self.path(path)
            text += ",\"id\":"; string(new.id(at: path) ?? "")
            text += "}"
        }
        text += "],\"itemMoves\":"
        pathPairs(changeset.itemMoves.map { ($0.from, $0.to) })
        text += ",\"itemUpdates\":"
        pathPairs(changeset.itemUpdates.map { ($0.from, $0.to) })
        text += "}"
    }

    private mutating func pairs(_ values: [(Int, Int)]) {
        text += "["
        for (i, (from, to)) in values.enumerated() {
            if i > 0 { text += "," }
            text += "["; int(from); text += ","; int(to); text += "]"
        }
        text += "]"
    }

    private mutating func pathPairs(_ values: [(IndexPath, IndexPath)]) {
        text += "["
        for (i, (from, to)) in values.enumerated() {
            if i > 0 { text += "," }
            text += "{\"from\":"; path(from); text += ",\"to\":"; path(to); text += "}"
        }
        text += "]"
    }

    // MARK: Colours

    /// The thumbnail colour of an item: a hue from a hash of its id (FNV-1a),
    /// at a fixed saturation and lightness, as `#rrggbb`.
    package static func colour(of id: String) -> String {
        var hash: UInt32 = 2_166_136_261
        for byte in id.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        let hue = Double(hash % 360)
        let saturation = 0.45
        let lightness = 0.62
        let chroma = (1 - abs(2 * lightness - 1)) * saturation
        let sector = hue / 60
        let x = chroma * (1 - abs(sector.truncatingRemainder(dividingBy: 2) - 1))
        let (r, g, b): (Double, Double, Double) = switch Int(sector) {
        case 0: (chroma, x, 0)
        case 1: (x, chroma, 0)
        case 2: (0, chroma, x)
        case 3: (0, x, chroma)
        case 4: (x, 0, chroma)
        default: (chroma, 0, x)
        }
        let m = lightness - chroma / 2
        func hex(_ value: Double) -> String {
            let byte = Int(((value + m) * 255).rounded())
            let digits = String(min(255, max(0, byte)), radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }
        return "#" + hex(r) + hex(g) + hex(b)
    }
}
