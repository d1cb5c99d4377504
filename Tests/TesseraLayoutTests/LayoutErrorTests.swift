import Foundation
import Testing
import TesseraDiff
import TesseraLayout
import TesseraTestSupport
import TesseraTestTraits

@Suite("Layout errors", .cpuBound)
struct LayoutErrorTests {
    /// Every frame of a layout is finite.
    static func allFramesFinite(_ layout: CollectionViewLayout, _ itemCounts: [Int]) -> Bool {
        allElements(of: layout, itemCounts: itemCounts).allSatisfy { $0.frame.isFinite }
            && layout.collectionViewContentSize.width.isFinite && layout.collectionViewContentSize.height.isFinite
    }

    @Test("A bad item size from the delegate names the index path; frames stay finite", arguments: badNumbers)
    func badItemSize(value: Double) {
        let delegate = TableDelegate()
        delegate.itemSizes[IndexPath(item: 2, section: 1)] = Size(width: 10, height: value)
        let (flow, environment) = prepared(FlowLayout(), width: 300, height: 600, itemCounts: [3, 4]) { $0.delegate = delegate }
        #expect(flow.layoutError?.subject == .itemSize(IndexPath(item: 2, section: 1)))
        #expect(flow.layoutError?.description == "invalid layout value: the size of item 2 in section 1 is 10×\(value.tesseraTestShort); sizes, insets and spacings must be finite, not negative and at most 10^12 points")
        #expect(Self.allFramesFinite(flow, environment.itemCounts))
        let (list, _) = prepared(ListLayout(), itemCounts: [3, 4]) { $0.delegate = delegate }
        #expect(list.layoutError?.subject == .itemSize(IndexPath(item: 2, section: 1)))
        #expect(Self.allFramesFinite(list, environment.itemCounts))
    }

    @Test("Bad section values name the section", arguments: badNumbers)
    func badSectionValues(value: Double) {
        let cases: [(TableDelegate, LayoutError.Subject)] = [
            ({ let d = TableDelegate(); d.insets[1] = EdgeInsets(top: 0, left: value, bottom: 0, right: 0); return d }(), .sectionInset(section: 1)),
            ({ let d = TableDelegate(); d.lineSpacings[1] = value; return d }(), .lineSpacing(section: 1)),
            ({ let d = TableDelegate(); d.interitemSpacings[1] = value; return d }(), .interitemSpacing(section: 1)),
            ({ let d = TableDelegate(); d.headerSizes[1] = Size(width: 0, height: value); return d }(), .headerSize(section: 1)),
            ({ let d = TableDelegate(); d.footerSizes[1] = Size(width: 0, height: value); return d }(), .footerSize(section: 1)),
        ]
        for (delegate, subject) in cases {
            let (flow, environment) = prepared(FlowLayout(), width: 300, height: 600, itemCounts: [2, 5]) { $0.delegate = delegate }
            #expect(flow.layoutError?.subject == subject, "\(subject)")
            #expect(Self.allFramesFinite(flow, environment.itemCounts))
            if subject != .lineSpacing(section: 1) {
                let (list, _) = prepared(ListLayout(), itemCounts: [2, 5]) { $0.delegate = delegate }
                #expect(list.layoutError?.subject == subject, "list \(subject)")
                #expect(Self.allFramesFinite(list, environment.itemCounts))
            }
        }
    }

    @Test("A bad layout property is named", arguments: badNumbers)
    func badProperty(value: Double) {
        let (flow, environment) = prepared(FlowLayout(), width: 300, height: 600, itemCounts: [3]) { $0.minimumInteritemSpacing = value }
        #expect(flow.layoutError == LayoutError(subject: .property("minimumInteritemSpacing"), value: "\(value)"))
        #expect(Self.allFramesFinite(flow, environment.itemCounts))
        let (list, _) = prepared(ListLayout(), itemCounts: [3]) { $0.itemHeight = value }
        #expect(list.layoutError?.subject == .property("itemHeight"))
        #expect(Self.allFramesFinite(list, environment.itemCounts))
    }

    @Test("The error clears once the value is fixed")
    func errorClears() {
        let delegate = TableDelegate()
        delegate.lineSpacings[0] = -3
        let (flow, environment) = prepared(FlowLayout(), width: 300, height: 600, itemCounts: [3]) { $0.delegate = delegate }
        #expect(flow.layoutError != nil)
        delegate.lineSpacings[0] = 3
        flow.invalidateLayout()
        flow.prepare()
        #expect(flow.layoutError == nil)
        withExtendedLifetime(environment) {}
    }
}

extension Double {
    /// How `Size`'s description prints a number.
    var tesseraTestShort: String { self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self) }
}
