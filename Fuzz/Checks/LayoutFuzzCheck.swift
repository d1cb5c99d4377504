import TesseraLayout
import TesseraTestSupport

/// Every built-in layout fed arbitrary settings and delegate values, hostile
/// ones included (NaN, infinities, negative, huge).
///
/// Oracles: nothing traps; every frame is finite; a layout that reports no
/// error has content that encloses every frame and rect queries that equal
/// a brute-force filter; one that reports an error names it.
public enum LayoutFuzzCheck {
    public static func problems(_ input: inout FuzzInput) -> [String] {
        let kind = LayoutKind.allCases[input.int(in: 0...LayoutKind.allCases.count - 1)]
        let spec = RandomLayoutSpec(kind: kind, seed: UInt64(input.byte()) | UInt64(input.byte()) << 8)
        let itemCounts = (0..<input.int(in: 0...4)).map { _ in input.int(in: 0...12) }
        let delegate = AnyLayoutDelegate()
        for (section, count) in itemCounts.enumerated() {
            if input.bool() { delegate.insets[section] = EdgeInsets(top: input.length(), left: input.length(), bottom: input.length(), right: input.length()) }
            if input.bool() { delegate.lineSpacings[section] = input.length() }
            if input.bool() { delegate.interitemSpacings[section] = input.length() }
            if input.bool() { delegate.headerSizes[section] = Size(width: input.length(), height: input.length()) }
            if input.bool() { delegate.footerSizes[section] = Size(width: input.length(), height: input.length()) }
            if input.bool() { delegate.columnCounts[section] = input.int(in: -2...300) }
            for item in 0..<count {
                let path = IndexPath(item: item, section: section)
                if input.bool() { delegate.itemSizes[path] = Size(width: input.length(), height: input.length()) }
                if input.int(in: 0...7) == 0 { delegate.spanItems.insert(path) }
                if input.int(in: 0...3) == 0 { delegate.aspectRatios[path] = Size(width: input.length(), height: input.length()) }
            }
        }
        let layout = spec.make(delegate: delegate)
        let environment = StaticLayoutEnvironment(size: Size(width: Double(input.int(in: 0...500)), height: Double(input.int(in: 0...900))), itemCounts: itemCounts)
        environment.bounds.origin = Point(x: Double(input.int(in: -50...400)), y: Double(input.int(in: -50...2000)))
        layout.collectionView = environment
        layout.prepare()
        let label = "\(spec), counts \(itemCounts), view \(environment.bounds)"
        guard everyFrameIsFinite(layout, itemCounts: itemCounts) else { return ["\(label): a frame is not finite"] }
        if let error = layout.layoutError {
            return "\(error)".isEmpty ? ["\(label): an error that says nothing"] : []
        }
        var generator = SplitMix64(seed: UInt64(input.byte()))
        let elements = everyElement(of: layout, itemCounts: itemCounts)
        let rects = [environment.bounds] + randomQueryRects(count: 3, content: layout.collectionViewContentSize, elements: elements, using: &generator)
        return contentAndQueryViolations(of: layout, itemCounts: itemCounts, elements: elements, rects: rects).map { "\(label): \($0)" }
    }
}
