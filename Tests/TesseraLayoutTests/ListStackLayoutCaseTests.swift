import Foundation
import Testing
import TesseraLayout
import TesseraTestSupport
import TesseraTestTraits

/// The cases of `Fixtures/list-stack-layout-cases.json` (beside this file;
/// its README says where the values come from): frames that IGListKit's own
/// tests assert for `IGListCollectionViewLayout`, each run as its own test
/// against ``ListStackLayout``.
///
/// The file is found relative to this source file, inside the repository.
/// A missing or unreadable file fails.
@Suite("ListStackLayout: IGListKit cases", .cpuBound)
struct ListStackLayoutCaseTests {
    /// `Tests/TesseraLayoutTests/Fixtures/list-stack-layout-cases.json`.
    static let fileURL: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent() // Tests/TesseraLayoutTests
        .appendingPathComponent("Fixtures/list-stack-layout-cases.json")

    /// The cases by id, or why they could not be read.
    static let loaded: Result<[(id: String, value: ListStackCaseJSON)], ListStackCaseFileError> = {
        do {
            let data = try Data(contentsOf: fileURL)
            let root = try JSONDecoder().decode(ListStackCaseJSON.self, from: data)
            guard let cases = root["cases"]?.array else { return .failure(ListStackCaseFileError(message: "\(fileURL.path) has no \"cases\" array")) }
            var result: [(id: String, value: ListStackCaseJSON)] = []
            for (index, value) in cases.enumerated() {
                result.append((value["id"]?.string ?? "case \(index)", value))
            }
            return .success(result)
        } catch {
            return .failure(ListStackCaseFileError(message: "cannot read the ListStackLayout cases at \(fileURL.path): \(error)"))
        }
    }()

    /// The case ids, or one placeholder that fails when the file is missing
    /// (so a missing file is a failure, never an empty, passing run).
    static var caseIDs: [String] {
        switch loaded {
        case let .success(cases): return cases.isEmpty ? ["<no cases>"] : cases.map(\.id)
        case .failure: return ["<case file missing>"]
        }
    }

    @Test("The case file is present and holds cases")
    func caseFileIsPresent() throws {
        let cases = try Self.loaded.get()
        #expect(!cases.isEmpty, "no cases in \(Self.fileURL.path)")
        #expect(Set(cases.map(\.id)).count == cases.count, "case ids are not unique")
    }

    @Test("IGListKit case", arguments: caseIDs)
    func runCase(id: String) throws {
        let cases = try Self.loaded.get()
        guard let value = cases.first(where: { $0.id == id })?.value else {
            Issue.record("no case \(id) in \(Self.fileURL.path)")
            return
        }
        try ListStackCaseRunner(case: value, id: id).run()
    }
}

/// Why the case file could not be used.
struct ListStackCaseFileError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Runs one case: builds the layout, its environment and delegate, checks
/// the expectations, then applies each step and checks its expectations.
struct ListStackCaseRunner {
    let value: ListStackCaseJSON
    let id: String

    init(case value: ListStackCaseJSON, id: String) {
        self.value = value
        self.id = id
    }

    func run() throws {
        let layoutValues = value["layout"] ?? .object([:])
        let direction: ScrollDirection = layoutValues["scrollDirection"]?.string == "horizontal" ? .horizontal : .vertical
        let layout = ListStackLayout(
            scrollDirection: direction,
            stickyHeaders: layoutValues["stickyHeaders"]?.bool ?? false,
            topContentInset: layoutValues["topContentInset"]?.number ?? 0,
            stretchToEdge: layoutValues["stretchToEdge"]?.bool ?? false
        )
        layout.showHeaderWhenEmpty = layoutValues["showHeaderWhenEmpty"]?.bool ?? false
        layout.stickyHeaderYOffset = layoutValues["stickyHeaderYOffset"]?.number ?? 0

        let view = try require(value["collectionView"], "collectionView")
        let size = Size(width: try require(view["width"]?.number, "collectionView.width"), height: try require(view["height"]?.number, "collectionView.height"))
        let delegate = ListStackTableDelegate()
        let itemCounts = try delegate.load(sections: value["sections"]?.array ?? [])
        let environment = StaticLayoutEnvironment(size: size, itemCounts: itemCounts, contentInset: Self.insets(view["contentInset"]))
        environment.bounds.origin = Self.point(view["contentOffset"])
        if let scale = view["screenScale"]?.number ?? value["screenScale"]?.number ?? layoutValues["screenScale"]?.number {
            layout.screenScale = scale
        }
        layout.collectionView = environment
        layout.delegate = delegate
        layout.prepare()
        #expect(layout.layoutError == nil, "case \(id): \(String(describing: layout.layoutError))")
        try check(value["expect"], layout: layout, environment: environment, where: "initial state")
        if let derived = value["derived"]?["contentSize"] {
            try checkContentSize(derived, layout: layout, where: "derived")
        }

        for (index, step) in (value["steps"]?.array ?? []).enumerated() {
            if let offset = step["contentOffset"] {
                changeBounds(to: Rect(origin: Self.point(offset), size: environment.bounds.size), layout: layout, environment: environment)
            }
            if let yOffset = step["stickyHeaderYOffset"]?.number {
                layout.stickyHeaderYOffset = yOffset
            }
            if let newSize = step["collectionViewSize"] {
                let width = try require(newSize["width"]?.number ?? newSize.array?.first?.number, "step \(index) collectionViewSize.width")
                let height = try require(newSize["height"]?.number ?? newSize.array?.last?.number, "step \(index) collectionViewSize.height")
                changeBounds(to: Rect(origin: environment.bounds.origin, size: Size(width: width, height: height)), layout: layout, environment: environment)
            }
            if let sections = step["reloadWithSections"]?.array {
                delegate.clear()
                environment.itemCounts = try delegate.load(sections: sections)
                layout.invalidateLayout()
            }
            layout.prepare()
            #expect(layout.layoutError == nil, "case \(id), step \(index): \(String(describing: layout.layoutError))")
            try check(step["expect"], layout: layout, environment: environment, where: "step \(index)")
        }
    }

    /// What a collection view does when its bounds change: asks the layout
    /// whether to invalidate and with what context, then takes the bounds.
    func changeBounds(to newBounds: Rect, layout: ListStackLayout, environment: StaticLayoutEnvironment) {
        if layout.shouldInvalidateLayout(forBoundsChange: newBounds) {
            layout.invalidateLayout(with: layout.invalidationContext(forBoundsChange: newBounds))
        }
        environment.bounds = newBounds
    }

    func check(_ expect: ListStackCaseJSON?, layout: ListStackLayout, environment: StaticLayoutEnvironment, where place: String) throws {
        guard let expect else { return }
        let label = "case \(id), \(place)"
        if let contentSize = expect["contentSize"] {
            try checkContentSize(contentSize, layout: layout, where: place)
        }
        for (kind, key) in [(ElementKind.sectionHeader, "headers"), (ElementKind.sectionFooter, "footers")] {
            for entry in expect[key]?.array ?? [] {
                let section = try require(entry["section"]?.int, "\(label): \(key) entry without a section")
                let frame = try Self.rect(require(entry["frame"], "\(label): \(key) entry without a frame"))
                let attributes = layout.layoutAttributesForSupplementaryView(ofKind: kind, at: IndexPath(item: 0, section: section))
                #expect(attributes?.frame == frame, "\(label): \(key) of section \(section): expected \(frame), got \(String(describing: attributes?.frame))")
                #expect(attributes?.zIndex == section * 1000 + 999, "\(label): \(key) of section \(section) z-index")
                if let attributes, !frame.isEmpty {
                    let queried = layout.layoutAttributesForElements(in: frame).first { $0.category == attributes.category && $0.indexPath == attributes.indexPath }
                    #expect(queried == attributes, "\(label): a query over its frame returns the \(key) of section \(section) as it is")
                }
            }
        }
        for entry in expect["headersAbsent"]?.array ?? [] {
            let section = try require(entry.int ?? entry["section"]?.int, "\(label): headersAbsent entry")
            // As a collection view would find it: no header view for the
            // section in the visible area.
            let visible = layout.layoutAttributesForElements(in: environment.bounds)
            let header = visible.first { $0.category == .supplementaryView(ElementKind.sectionHeader) && $0.indexPath.first == section }
            #expect(header == nil, "\(label): section \(section) must have no header view, got \(String(describing: header))")
        }
        for entry in expect["items"]?.array ?? [] {
            let section = try require(entry["section"]?.int, "\(label): item entry without a section")
            let item = try require(entry["item"]?.int, "\(label): item entry without an item")
            let frame = try Self.rect(require(entry["frame"], "\(label): item entry without a frame"))
            let attributes = layout.layoutAttributesForItem(at: IndexPath(item: item, section: section))
            #expect(attributes?.frame == frame, "\(label): item [\(section), \(item)]: expected \(frame), got \(String(describing: attributes?.frame))")
            #expect(attributes?.zIndex == section * 1000 + item, "\(label): item [\(section), \(item)] z-index")
        }
        for (index, query) in (expect["queries"]?.array ?? []).enumerated() {
            try checkQuery(query, layout: layout, label: "\(label), query \(index)")
        }
    }

    func checkContentSize(_ expected: ListStackCaseJSON, layout: ListStackLayout, where place: String) throws {
        let size = layout.collectionViewContentSize
        if let width = expected["width"]?.number {
            #expect(size.width == width, "case \(id), \(place): content width \(size.width), expected \(width)")
        }
        if let height = expected["height"]?.number {
            #expect(size.height == height, "case \(id), \(place): content height \(size.height), expected \(height)")
        }
    }

    /// A rect query: its rect, and either the number of attributes it
    /// returns or the sorted `[section, item]` index paths of its cells.
    func checkQuery(_ query: ListStackCaseJSON, layout: ListStackLayout, label: String) throws {
        let expect = query["expect"] ?? query
        let rectValue = try require(query["rect"] ?? query["in"] ?? query["frame"], "\(label): no rect (keys: \(query.keys))")
        let rect = try Self.rect(rectValue)
        let result = layout.layoutAttributesForElements(in: rect)
        var checked = false
        if let count = expect["count"]?.int {
            #expect(result.count == count, "\(label): \(rect) returned \(result.count) elements, expected \(count)")
            checked = true
        }
        for key in ["indexPaths", "sortedIndexPaths", "cells", "items", "paths"] {
            guard let list = expect[key]?.array else { continue }
            let expected = try list.map { path -> [Int] in
                let numbers = (path.array ?? []).compactMap(\.int)
                if numbers.count == 2 { return numbers }
                return [try require(path["section"]?.int, "\(label): index path"), try require(path["item"]?.int, "\(label): index path")]
            }.sorted { $0.lexicographicallyPrecedes($1) }
            let actual = result.filter { $0.category == .cell }.map { Array($0.indexPath) }.sorted { $0.lexicographicallyPrecedes($1) }
            #expect(actual == expected, "\(label): cells in \(rect)")
            checked = true
        }
        #expect(checked, "\(label): the query names neither a count nor index paths (keys: \(query.keys))")
    }

    func require<T>(_ value: T?, _ what: @autoclosure () -> String) throws -> T {
        guard let value else { throw ListStackCaseFileError(message: "case \(id): missing \(what())") }
        return value
    }

    static func rect(_ value: ListStackCaseJSON) throws -> Rect {
        if let numbers = value.array?.compactMap(\.number), numbers.count == 4 {
            return Rect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
        }
        if let x = value["x"]?.number, let y = value["y"]?.number, let width = value["width"]?.number, let height = value["height"]?.number {
            return Rect(x: x, y: y, width: width, height: height)
        }
        throw ListStackCaseFileError(message: "not a frame: \(value)")
    }

    static func insets(_ value: ListStackCaseJSON?) -> EdgeInsets {
        EdgeInsets(
            top: value?["top"]?.number ?? 0, left: value?["left"]?.number ?? 0,
            bottom: value?["bottom"]?.number ?? 0, right: value?["right"]?.number ?? 0
        )
    }

    static func point(_ value: ListStackCaseJSON?) -> Point {
        Point(x: value?["x"]?.number ?? 0, y: value?["y"]?.number ?? 0)
    }
}

extension ListStackTableDelegate {
    /// Takes the per-section values of a case (`insets`, `lineSpacing`,
    /// `interitemSpacing`, `headerHeight`, `footerHeight`, `items`) and
    /// returns the item counts.
    func load(sections: [ListStackCaseJSON]) throws -> [Int] {
        var counts: [Int] = []
        for (section, values) in sections.enumerated() {
            if let insets = values["insets"] { self.insets[section] = ListStackCaseRunner.insets(insets) }
            if let spacing = values["lineSpacing"]?.number { lineSpacings[section] = spacing }
            if let spacing = values["interitemSpacing"]?.number { interitemSpacings[section] = spacing }
            // The test delegate of IGListKit returns a square header size
            // whose side is the length along the scroll axis.
            headerLengths[section] = values["headerHeight"]?.number ?? 0
            footerLengths[section] = values["footerHeight"]?.number ?? 0
            let items = values["items"]?.array ?? []
            for (item, size) in items.enumerated() {
                let numbers = size.array?.compactMap(\.number) ?? []
                guard numbers.count == 2 else { throw ListStackCaseFileError(message: "item \(item) of section \(section) is not [width, height]: \(size)") }
                itemSizes[IndexPath(item: item, section: section)] = Size(width: numbers[0], height: numbers[1])
            }
            counts.append(items.count)
        }
        return counts
    }
}

/// Any JSON value, read without a fixed schema.
enum ListStackCaseJSON: Decodable, Sendable, CustomStringConvertible {
    case number(Double)
    case string(String)
    case bool(Bool)
    case array([ListStackCaseJSON])
    case object([String: ListStackCaseJSON])
    case null

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([ListStackCaseJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: ListStackCaseJSON].self))
        }
    }

    subscript(key: String) -> ListStackCaseJSON? {
        if case let .object(values) = self { return values[key] }
        return nil
    }

    var number: Double? { if case let .number(value) = self { return value } else { return nil } }
    var int: Int? { number.flatMap { $0.rounded() == $0 ? Int(exactly: $0) : nil } }
    var string: String? { if case let .string(value) = self { return value } else { return nil } }
    var bool: Bool? { if case let .bool(value) = self { return value } else { return nil } }
    var array: [ListStackCaseJSON]? { if case let .array(values) = self { return values } else { return nil } }
    var keys: [String] { if case let .object(values) = self { return values.keys.sorted() } else { return [] } }

    var description: String {
        switch self {
        case let .number(value): return "\(value)"
        case let .string(value): return "\"\(value)\""
        case let .bool(value): return "\(value)"
        case let .array(values): return "[\(values.map(\.description).joined(separator: ", "))]"
        case let .object(values): return "{\(values.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))}"
        case .null: return "null"
        }
    }
}
