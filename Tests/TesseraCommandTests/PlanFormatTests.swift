import Foundation
import Testing
import TesseraLayout
import TesseraRender
import TesseraView
import TesseraTestTraits

/// The plan format (``PlanJSON``): what a plan element says of its motion,
/// and the plan pages, which embed plans in it.
@Suite("The plan format: one writer for the live list and the plan pages", .cpuBound)
struct PlanFormatTests {
    static let view = ViewIdentity(reuseIdentifier: "Cell", instance: 0)

    static func cell(_ item: Int, y: Double, alpha: Double = 1, z: Int = 0, transform: Transform = .identity, hidden: Bool = false) -> LayoutAttributes {
        var attributes = LayoutAttributes.cell(at: IndexPath(item: item, section: 0), frame: Rect(x: 0, y: y, width: 100, height: 40))
        attributes.alpha = alpha
        attributes.zIndex = z
        attributes.transform = transform
        attributes.isHidden = hidden
        return attributes
    }

    static func motion(_ element: AnimationPlan.Element) throws -> [String: JSON] {
        var out = PlanJSON()
        out.raw("{\"frame\":"); out.rect(element.to.frame)
        out.elementMotion(element)
        out.raw("}")
        guard case let .object(members) = try JSON.parse(out.text) else { throw PlanFormatError("not an object: \(out.text)") }
        return Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    struct PlanFormatError: Error { var message: String; init(_ message: String) { self.message = message } }

    @Test("an element's motion: its frames, raw alphas, z-indexes and disposition; hidden ends and transforms only when they hold")
    func elementMotion() throws {
        let plain = AnimationPlan.Element(
            category: .cell, indexPathBefore: [0, 0], indexPathAfter: [0, 1], itemID: "a",
            from: Self.cell(0, y: 0, z: 1), to: Self.cell(1, y: 40, z: 2), disposition: .move, view: Self.view
        )
        let members = try Self.motion(plain)
        #expect(members["from"] == .array([.int(0), .int(0), .int(100), .int(40)]))
        #expect(members["frame"] == .array([.int(0), .int(40), .int(100), .int(40)]))
        #expect(members["fromAlpha"] == .int(1) && members["toAlpha"] == .int(1))
        #expect(members["fromZ"] == .int(1) && members["toZ"] == .int(2))
        #expect(members["disposition"] == .string("moved"))
        #expect(Set(members.keys) == ["frame", "from", "fromAlpha", "toAlpha", "fromZ", "toZ", "disposition"])

        let grow = Transform(a: 0.5, b: 0, c: 0, d: 0.5, tx: 3, ty: -2)
        let hidden = AnimationPlan.Element(
            category: .cell, indexPathBefore: [0, 2], indexPathAfter: [0, 2], itemID: "b",
            from: Self.cell(2, y: 80, alpha: 0.25, transform: grow, hidden: true), to: Self.cell(2, y: 80), disposition: .reload, view: Self.view
        )
        let more = try Self.motion(hidden)
        // The alpha is the element's own; being hidden is said apart.
        #expect(more["fromAlpha"] == .double(0.25))
        #expect(more["fromHidden"] == .bool(true))
        #expect(more["toHidden"] == nil)
        #expect(more["fromTransform"] == .array([0.5, 0, 0, 0.5, 3, -2].map(JSON.double)))
        #expect(more["toTransform"] == .array([1, 0, 0, 1, 0, 0].map(JSON.double)))
        #expect(more["disposition"] == .string("reloaded"))
    }

    @Test("every disposition and timing has its name in the format")
    func names() {
        let dispositions: [AnimationPlan.Disposition] = [.insert, .delete, .move, .reload, .shift, .unchanged]
        #expect(dispositions.map(PlanJSON.disposition) == ["inserted", "deleted", "moved", "reloaded", "shifted", "unchanged"])
        #expect([AnimationTiming.linear, .easeInOut, .spring(dampingRatio: 0.8, response: 0.3)].map(PlanJSON.timingName) == ["linear", "easeInOut", "spring"])
    }

    @Test("a plan page embeds each plan in the format: the plan's members, and each element's key, frame and motion as the writer gives them")
    func pageEmbedsTheFormat() throws {
        let elements = [
            AnimationPlan.Element(category: .cell, indexPathBefore: [0, 0], indexPathAfter: [0, 1], itemID: "a", from: Self.cell(0, y: 0), to: Self.cell(1, y: 40), disposition: .move, view: Self.view),
            AnimationPlan.Element(category: .cell, indexPathBefore: nil, indexPathAfter: [0, 0], itemID: "b", from: Self.cell(0, y: 0, alpha: 0, hidden: true), to: Self.cell(0, y: 0), disposition: .insert, view: Self.view),
        ]
        let plan = AnimationPlan(
            elements: elements, contentSizeBefore: Size(width: 100, height: 80), contentSizeAfter: Size(width: 100, height: 120),
            contentOffsetBefore: .zero, contentOffsetAfter: Point(x: 0, y: 10), duration: 0.3, timing: .easeInOut,
            dequeuedViews: [], recycledViews: []
        )
        let html = PlanPage.html(title: "t", entries: [PlanPage.Entry(title: "one", plan: plan, labels: ["a", "b"], viewport: Size(width: 100, height: 80))])
        let start = try #require(html.range(of: "const PLANS = "))
        let end = try #require(html[start.upperBound...].range(of: ";\n"))
        guard case let .array(plans) = try JSON.parse(String(html[start.upperBound..<end.lowerBound])), case let .object(page)? = plans.first else {
            Issue.record("no plans on the page")
            return
        }
        let members = Dictionary(page.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        var header = PlanJSON()
        header.raw("{"); header.planMembers(plan); header.raw("}")
        guard case let .object(expected) = try JSON.parse(header.text) else { Issue.record("no plan members"); return }
        for (key, value) in expected { #expect(members[key] == value, "\(key)") }
        guard case let .array(written)? = members["elements"] else { Issue.record("no elements"); return }
        #expect(written.count == 2)
        for (element, (label, value)) in zip(elements, zip(["a", "b"], written)) {
            guard case let .object(pairs) = value else { Issue.record("an element is not an object"); continue }
            var got = Dictionary(pairs.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
            #expect(got.removeValue(forKey: "key") == .string(label))
            #expect(got.removeValue(forKey: "title") == .string(label))
            #expect(got.removeValue(forKey: "kind") == .string("item"))
            #expect(got.removeValue(forKey: "z") == .int(element.to.zIndex))
            #expect(got == (try Self.motion(element)))
        }
    }
}
