import Foundation
import Testing
import TesseraLayout
import TesseraTestTraits

@Suite("Geometry", .cpuBound)
struct GeometryTests {
    @Test("Rects that only touch do not intersect; empty rects intersect nothing")
    func intersection() {
        let a = Rect(x: 0, y: 0, width: 10, height: 10)
        #expect(!a.intersects(Rect(x: 10, y: 0, width: 5, height: 5)))
        #expect(!a.intersects(Rect(x: 0, y: 10, width: 5, height: 5)))
        #expect(!a.intersects(Rect(x: 10, y: 10, width: 5, height: 5)))
        #expect(a.intersects(Rect(x: 9.5, y: 9.5, width: 5, height: 5)))
        #expect(!a.intersects(Rect(x: 5, y: 5, width: 0, height: 3)))
        #expect(a.intersection(Rect(x: 5, y: -5, width: 10, height: 10)) == Rect(x: 5, y: 0, width: 5, height: 5))
        #expect(a.intersection(Rect(x: 20, y: 20, width: 1, height: 1)) == nil)
    }

    @Test("Edges, union, insets and offsets")
    func edges() {
        let r = Rect(x: 10, y: 20, width: 30, height: 40)
        #expect((r.minX, r.midX, r.maxX, r.minY, r.midY, r.maxY) == (10, 25, 40, 20, 40, 60))
        #expect(r.union(Rect(x: 0, y: 50, width: 5, height: 30)) == Rect(x: 0, y: 20, width: 40, height: 60))
        #expect(r.insetBy(dx: 5, dy: 10) == Rect(x: 15, y: 30, width: 20, height: 20))
        #expect(r.inset(by: EdgeInsets(top: 1, left: 2, bottom: 3, right: 4)) == Rect(x: 12, y: 21, width: 24, height: 36))
        #expect(r.offsetBy(dx: -10, dy: 5).origin == Point(x: 0, y: 25))
        #expect(Rect(x: 10, y: 10, width: -4, height: 2).minX == 6)
    }

    @Test("Pixel snapping floors the origin and ceils the far edges at the screen scale")
    func pixelSnapping() {
        let r = Rect(x: 0.3, y: 1.76, width: 10.1, height: 0.5)
        #expect(r.integral == Rect(x: 0, y: 1, width: 11, height: 2))
        #expect(r.pixelAligned(scale: 2) == Rect(x: 0, y: 1.5, width: 10.5, height: 1))
        #expect(r.pixelAligned(scale: 3).minY * 3 == (r.minY * 3).rounded(.down))
    }

    @Test("Transforms compose, apply and interpolate")
    func transforms() {
        let move = Transform.translation(10, 5)
        let grow = Transform.scale(2, 3)
        #expect(move.concatenating(grow).apply(to: Point(x: 1, y: 1)) == Point(x: 22, y: 18))
        #expect(grow.concatenating(move).apply(to: Point(x: 1, y: 1)) == Point(x: 12, y: 8))
        let quarter = Transform.rotation(Double.pi / 2).apply(to: Point(x: 1, y: 0))
        #expect(abs(quarter.x) < 1e-12 && abs(quarter.y - 1) < 1e-12)
        #expect(Transform.identity.interpolated(to: grow, progress: 0.5) == Transform.scale(1.5, 2))
        #expect(Transform.identity.isIdentity && !move.isIdentity)
    }

    @Test("Geometry round-trips through Codable")
    func codable() throws {
        let value = (Rect(x: 1, y: 2, width: 3, height: 4), EdgeInsets(all: 2), Transform.scale(2, 2))
        let decoder = JSONDecoder()
        let encoder = JSONEncoder()
        #expect(try decoder.decode(Rect.self, from: encoder.encode(value.0)) == value.0)
        #expect(try decoder.decode(EdgeInsets.self, from: encoder.encode(value.1)) == value.1)
        #expect(try decoder.decode(Transform.self, from: encoder.encode(value.2)) == value.2)
    }
}
