/// The photos of the demos (`tessera demo` and `tessera serve`'s library):
/// made up, in 40 albums, the same photos for the same count.
package enum DemoPhotos {
    /// One photo.
    package struct Photo: Sendable, Hashable {
        /// Its id, from 1.
        package var id: Int64
        /// Its album: its section.
        package var album: String
        /// Its title: a subject and a moment.
        package var title: String
        /// When it was taken, in seconds since 1970 (2015 to 2025, never
        /// two photos in the same second).
        package var taken: Int64
    }

    /// The albums, one section each.
    package static let albums = [
        "Amsterdam", "Barcelona", "Berlin", "Birthday party", "Brighton", "Cairo", "Camping trip", "Copenhagen",
        "Dolomites", "Dublin", "Edinburgh", "Family", "Garden", "Graduation", "Helsinki", "Iceland", "Istanbul",
        "Kyoto", "Lisbon", "London", "Marrakesh", "Mexico City", "Montreal", "Naples", "New York", "Oslo", "Paris",
        "Patagonia", "Prague", "Reykjavik", "Rome", "San Francisco", "Scotland road trip", "Seoul", "Snow day",
        "Stockholm", "Sydney", "Tokyo", "Vienna", "Zanzibar",
    ]
    static let subjects = [
        "Canal", "Market", "Sunset", "Harbour", "Old town", "Bridge", "Cathedral", "Street food", "Beach", "Dunes",
        "Museum", "Rooftops", "Park", "Train station", "Café", "Mountains", "Lake", "Forest path", "Night lights", "Portrait",
    ]
    static let moments = ["at dawn", "at noon", "at dusk", "in the rain", "from above", "with friends", "in the fog", "in winter"]

    /// Calls `body` with photos 1 through `count`, in id order, seeded
    /// with 2026: the same photos on every run and platform.
    ///
    /// - Complexity: O(*n*) for *n* photos.
    package static func generate<E: Error>(count: Int, _ body: (Photo) throws(E) -> Void) throws(E) {
        guard count > 0 else { return }
        var random = SplitMix64(seed: 2026)
        // 2015-01-01 … 2025-12-31, never twice the same second.
        let first: Int64 = 1_420_070_400
        let span: UInt64 = 11 * 365 * 86_400
        for id in 1...Int64(count) {
            let album = albums[Int(random.next() % UInt64(albums.count))]
            let title = subjects[Int(random.next() % UInt64(subjects.count))] + " " + moments[Int(random.next() % UInt64(moments.count))]
            let taken = first + Int64(random.next() % span) / 16 * 16 + id % 16
            try body(Photo(id: id, album: album, title: title, taken: taken))
        }
    }
}
