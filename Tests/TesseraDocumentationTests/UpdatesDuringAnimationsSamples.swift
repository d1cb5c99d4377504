import Testing
import Tessera

/// The samples of the "Updates during animations" article, compiled with
/// `import Tessera` and run.
@Suite("Updates during animations samples")
struct UpdatesDuringAnimationsSamples: PrintingSamples {
    let transcript = Transcript()

    struct Album: Identifiable, Equatable {
        var id: String
    }

    struct Photo: Identifiable, Equatable {
        var id: Int
        var title: String
    }

    static func snapshots() -> (snapshot: Snapshot<Album, Photo>, withPier: Snapshot<Album, Photo>, withoutBeach: Snapshot<Album, Photo>) {
        var snapshot = Snapshot<Album, Photo>()
        snapshot.appendSection(Album(id: "Holidays"), items: [Photo(id: 1, title: "Beach"), Photo(id: 2, title: "Sunset"), Photo(id: 3, title: "Dunes")])
        var withPier = snapshot
        withPier.insertItem(Photo(id: 4, title: "Pier"), at: IndexPath(item: 0, section: 0))
        var withoutBeach = withPier
        withoutBeach.removeItem(at: IndexPath(item: 1, section: 0))
        return (snapshot, withPier, withoutBeach)
    }

    @Test("A change made a third of the way into the plan before starts every element where that plan has it")
    func overview() throws {
        let (snapshot, withPier, withoutBeach) = Self.snapshots()

        // sample: Sources/TesseraView/TesseraView.docc/UpdatesDuringAnimations.md
        let view = CollectionView(layout: ListLayout(), size: Size(width: 320, height: 480))
        let source = DiffableDataSource<Album, Photo>(collectionView: view)   // keep `source`
        try source.apply(snapshot, animated: false, at: 0)

        let first = try source.apply(withPier, at: 10.0)       // plays from 10.0 to 10.3
        let second = try source.apply(withoutBeach, at: 10.1)  // a third of the way into `first`

        let onScreen = PlayingPlan(plan: first, startTime: 10.0).attributes(at: 10.1)
        for (element, now) in zip(first.elements, onScreen) {
            let next = second.elements.first { $0.view == element.view }
            print(element.itemID ?? "-", next?.from == now)      // true: it starts where it is
        }
        // end of sample
        #expect(transcript.lines == ["4 true", "1 true", "2 true", "3 true"])
        // The inserted Pier was fading in: it goes on from a third of the way.
        let pier = try #require(second.elements.first { $0.itemID == "4" })
        #expect(pier.from.alpha > 0 && pier.from.alpha < 1 && pier.disposition == .shift)
        // The deleted Beach fades out from where it was.
        let beach = try #require(second.elements.first { $0.itemID == "1" })
        #expect(beach.disposition == .delete && beach.from.frame == onScreen[1].frame && beach.to.alpha == 0)
        #expect(view.isAnimating(at: 10.3) && !view.isAnimating(at: 10.4))
        #expect(view.playingPlan == PlayingPlan(plan: second, startTime: 10.1))
    }

    // sample: Sources/TesseraView/TesseraView.docc/UpdatesDuringAnimations.md
    final class Player {
        var playing: PlayingPlan?

        /// A change made at `time`: its plan replaces the one playing.
        func show(_ plan: AnimationPlan, at time: Double) {
            playing = PlayingPlan(plan: plan, startTime: time)
        }

        /// What to draw at `time`.
        func frame(at time: Double) -> (offset: Point, elements: [LayoutAttributes]) {
            guard let playing else { return (.zero, []) }
            return (playing.contentOffset(at: time), playing.attributes(at: time))
        }
    }
    // end of sample

    @Test("A player that replaces its plan by each new one draws nothing that jumps at the change")
    func player() throws {
        let (snapshot, withPier, withoutBeach) = Self.snapshots()
        let view = CollectionView(layout: ListLayout(), size: Size(width: 320, height: 480))
        let source = DiffableDataSource<Album, Photo>(collectionView: view)
        try source.apply(snapshot, animated: false, at: 0)
        let player = Player()
        let first = try source.apply(withPier, at: 1.0)
        player.show(first, at: 1.0)
        let before = player.frame(at: 1.2)
        let second = try source.apply(withoutBeach, at: 1.2)
        player.show(second, at: 1.2)
        let after = player.frame(at: 1.2)
        #expect(before.offset == after.offset)
        for (index, element) in first.elements.enumerated() {
            let next = try #require(second.elements.firstIndex { $0.view == element.view })
            #expect(after.elements[next] == before.elements[index])
        }
        #expect(player.frame(at: 2).elements == second.elements.map(\.to))
    }

    @Test("A time that goes backwards is refused, and the view stays as it was")
    func backwards() throws {
        let view = CollectionView(layout: ListLayout(), size: Size(width: 320, height: 480))
        try view.setBounds(Rect(x: 0, y: 0, width: 320, height: 400), at: 10)
        #expect(throws: AnimationClockError.timeWentBackwards(time: 9, lastTime: 10)) {
            try view.setBounds(Rect(x: 0, y: 40, width: 320, height: 480), at: 9)
        }
        #expect(view.bounds == Rect(x: 0, y: 0, width: 320, height: 400))
    }
}
