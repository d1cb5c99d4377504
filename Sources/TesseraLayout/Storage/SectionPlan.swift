/// Which sections a pass of `prepare()` keeps from the store before it and
/// which it lays out again (``FrameStorageLayout/sectionPlan(context:framesStillValid:hasDelegate:environment:)``).
struct _SectionPlan {
    /// Per section after the pass: the section of the store before whose
    /// frames it keeps, or −1 when the pass lays it out.
    var kept: [Int]

    /// The sections to lay out, ascending.
    ///
    /// - Complexity: O(*s*) for *s* sections.
    var sectionsToLayOut: [Int] {
        kept.indices.filter { kept[$0] < 0 }
    }

    /// Whether the pass keeps `section`.
    func keeps(_ section: Int) -> Bool { kept[section] >= 0 }
}
