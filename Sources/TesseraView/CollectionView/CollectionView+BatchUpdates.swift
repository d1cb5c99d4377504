#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import TesseraDiff
import TesseraLayout

extension CollectionView {
    /// Performs a batch update and returns its animation plan.
    ///
    /// The data source must already answer for the state after the update.
    /// An interactive movement in progress is cancelled first, with no plan
    /// (the batch's plan starts from the order before the movement), even
    /// when the batch then throws.
    /// The batch is checked first against the counts before and after
    /// (Tessera's rules: item changes inside a moved section are allowed);
    /// an invalid batch throws and leaves the view, its layout and its
    /// offset exactly as they were. Then, in UIKit's order: the layout is
    /// prepared for the new state, told the update items
    /// (`prepare(forCollectionViewUpdates:)`), asked for the initial
    /// attributes of appearing elements and the final attributes of
    /// disappearing ones, and finalized. The content offset goes through
    /// `targetContentOffset(forProposedContentOffset:)`, after scroll
    /// anchoring when ``anchorsScrollPosition`` is on. Inserted, reloaded
    /// and newly visible items of a layout whose items size themselves are
    /// then sized (see <doc:SelfSizing>), before the plan's final attributes
    /// are read.
    ///
    /// Only elements visible before or after are in the plan; they are found
    /// with the layout's rect queries. The layout is told exactly which
    /// sections the batch changes, with the batch's index mapping
    /// (``InvalidationContext/invalidateSections(_:updateIndexMapping:)``),
    /// so Tessera's layouts lay out only those sections again.
    ///
    /// The selection and the highlight follow the items: a moved item, or
    /// an item of a moved section, stays selected at its new index path; a
    /// reloaded item stays selected; an item of a reloaded section stays
    /// selected at the same item index when the section still has that
    /// many items. A deleted item leaves the selection: once the update is
    /// applied and the plan made, just before this method returns, the
    /// ``delegate`` hears `collectionView(_:didDeselectItemAt:)` for each,
    /// with its index path before the update, in ascending order, then
    /// `collectionView(_:didUnhighlightItemAt:)` for a deleted highlighted
    /// item. The plan's ``AnimationPlan/Element/isSelected`` and
    /// ``AnimationPlan/Element/isHighlighted`` give the state after.
    ///
    /// - Parameters:
    ///   - items: The update items.
    ///   - animated: Whether the plan has a duration.
    /// - Throws: ``BatchValidationError``.
    /// - Complexity: the layout's `prepare()` (for Tessera's layouts, O(*m*)
    ///   for the *m* items of the sections the batch changes), plus
    ///   O(*k* log *k* + *s* + *v* log *k*) for *k* update items, *s*
    ///   sections (the counts are read and mapped) and *v* visible elements,
    ///   plus O(*e* log *e* + *k*) to move *e* selected items; nothing per
    ///   item of the sections the batch leaves alone.
    @discardableResult
    public func performBatchUpdates(_ items: [UpdateItem], animated: Bool = true) throws(BatchValidationError) -> AnimationPlan {
        try performBatchUpdates(items, animated: animated, itemIDsBefore: nil)
    }

    /// Performs a changeset (in Tessera's rules: section moves with item
    /// changes inside are fine) and returns its animation plan. Content
    /// updates of elements that do not move are reloads; an element that
    /// moves and changes is a move with ``AnimationPlan/Element/contentChanged``
    /// set.
    ///
    /// - Throws: ``BatchValidationError``.
    @discardableResult
    public func performBatchUpdates(_ changeset: Changeset, animated: Bool = true) throws(BatchValidationError) -> AnimationPlan {
        let (items, changedInPlace) = Self.updateItems(for: changeset)
        var plan = try forgettingFittedSizes(ofItemsChangedBy: changeset) { () throws(BatchValidationError) in
            try performBatchUpdates(items, animated: animated, itemIDsBefore: nil)
        }
        Self.markContentChanged(&plan, changedInPlace)
        return plan
    }

    /// Performs a UIKit-safe ``BatchUpdate``: its items, then its follow-up
    /// reloads when it has any, returning one plan for each pass.
    ///
    /// - Throws: ``BatchValidationError``; a pass that fails leaves the view
    ///   as the pass before left it.
    @discardableResult
    public func performBatchUpdates(_ batch: BatchUpdate, animated: Bool = true) throws(BatchValidationError) -> [AnimationPlan] {
        var plans: [AnimationPlan] = []
        for items in batch.batches {
            plans.append(try performBatchUpdates(items, animated: animated, itemIDsBefore: nil))
        }
        return plans
    }

    /// A changeset as one batch under Tessera's rules, and the elements whose
    /// content changed without a reload (new-state keys).
    static func updateItems(for changeset: Changeset) -> (items: [UpdateItem], contentChanged: Set<_ElementKey>) {
        var items = changeset.structuralUpdateItems
        var changed = Set<_ElementKey>()
        let (touchedOld, touchedNew) = changeset.sectionsWithItemChanges
        let movedSections = Set(changeset.sectionMoves.map(\.from))
        var reloadedSections = Set<Int>()
        for update in changeset.sectionUpdates {
            if movedSections.contains(update.from) || touchedOld.contains(update.from) || touchedNew.contains(update.to) {
                for kind in [ElementKind.sectionHeader, ElementKind.sectionFooter] {
                    changed.insert(_ElementKey(category: .supplementaryView(kind), indexPath: IndexPath(item: 0, section: update.to)))
                }
            } else {
                items.append(.reloadSection(update.from))
                reloadedSections.insert(update.from)
            }
        }
        let movedItems = Set(changeset.itemMoves.map(\.from))
        for update in changeset.itemUpdates where !reloadedSections.contains(update.from[0]) {
            if movedItems.contains(update.from) {
                changed.insert(_ElementKey(category: .cell, indexPath: update.to))
            } else {
                items.append(.reloadItem(at: update.from))
            }
        }
        return (items, changed)
    }

    static func markContentChanged(_ plan: inout AnimationPlan, _ keys: Set<_ElementKey>) {
        guard !keys.isEmpty else { return }
        for index in plan.elements.indices {
            if let path = plan.elements[index].indexPathAfter, keys.contains(_ElementKey(category: plan.elements[index].category, indexPath: path)) {
                plan.elements[index].contentChanged = true
            }
        }
    }

    func performBatchUpdates(
        _ items: [UpdateItem],
        animated: Bool,
        itemIDsBefore: ((IndexPath) -> String?)?
    ) throws(BatchValidationError) -> AnimationPlan {
        // Until the plan is made: the delegate hears about the deleted
        // selection after it, when it may begin a movement again.
        updateDepth += 1
        var updating = true
        defer { if updating { updateDepth -= 1 } }
        if interactiveMovementStep == nil { abandonInteractiveMovement() }
        let layout = collectionViewLayout
        let countsBefore = itemCounts
        let countsAfter = try readCounts()
        let mapping = try BatchIndexMapping(items, itemCountsBefore: countsBefore, itemCountsAfter: countsAfter)

        let boundsBefore = bounds
        let contentSizeBefore = contentSize
        var before = layout.layoutAttributesForElements(in: boundsBefore)
        substituteInteractivelyMovingItem(in: &before, after: false)
        let anchor = anchorsScrollPosition ? scrollAnchor(in: before, bounds: boundsBefore, mapping: mapping) : nil
        let edgeBefore = leadingEdge(of: boundsBefore.origin)
        let idsBefore: [IndexPath: String] = Dictionary(uniqueKeysWithValues: before.compactMap { attributes in
            guard attributes.category == .cell else { return nil }
            let id = itemIDsBefore?(attributes.indexPath) ?? nil
            return id.map { (attributes.indexPath, $0) }
        })

        // The layout keeps what it needs of the old state, then lays out the new one.
        layout._beginBatchUpdate(items, mapping: mapping)
        layOutAfterBatch(items, mapping: mapping, countsAfter: countsAfter)

        let flipped = layout.isFlippedHorizontally
        bounds.origin = offsetAfterBatch(from: boundsBefore.origin, anchor: anchor, edge: edgeBefore)
        sizingError = sizeVisibleItems()
        var after = layout.layoutAttributesForElements(in: bounds)
        substituteInteractivelyMovingItem(in: &after, after: true)

        let flips = _FlipWidths(before: flipped ? contentSizeBefore.width : nil, after: flipped ? contentSize.width : nil)
        let selectionBefore = selection
        let leaving = selection.remap(through: mapping, itemCountsAfter: countsAfter)
        var elements = planElements(before: before, after: after, mapping: mapping, items: items, idsBefore: idsBefore, flips: flips)
        markSelection(&elements, before: selectionBefore)
        let views = assignViews(to: &elements, visibleAfter: after.count)
        layout.finalizeCollectionViewUpdates()
        defer {
            updateDepth -= 1
            updating = false
            if postponedSelectionReports != nil {
                postponedSelectionReports?.append((leaving.deselected, leaving.unhighlighted))
            } else {
                reportDeletedSelection(deselected: leaving.deselected, unhighlighted: leaving.unhighlighted)
            }
        }
        return AnimationPlan(
            elements: elements,
            contentSizeBefore: contentSizeBefore,
            contentSizeAfter: contentSize,
            contentOffsetBefore: boundsBefore.origin,
            contentOffsetAfter: bounds.origin,
            duration: animated ? animationDuration : 0,
            timing: animationTiming,
            dequeuedViews: views.dequeued,
            recycledViews: views.recycled
        )
    }

    /// Tells the layout a batch's new counts and the sections it changes,
    /// and prepares it for the state after the batch (the old state was
    /// captured by `_beginBatchUpdate`).
    func layOutAfterBatch(_ items: [UpdateItem], mapping: BatchIndexMapping, countsAfter: [Int]) {
        let layout = collectionViewLayout
        forgetFittedSizes(ofItemsReloadedBy: items)
        itemCounts = countsAfter
        let context = InvalidationContext()
        context.invalidateSections(Self.sectionsChanged(by: items, mapping: mapping), updateIndexMapping: mapping)
        layout.invalidateLayout(with: context)
        layout.prepare()
        layout.prepare(forCollectionViewUpdates: items)
    }

    /// The content offset after a batch, for an offset `origin` before it:
    /// the scroll anchor kept in place when there is one, else the same
    /// distance from the leading edge, through the layout's
    /// `targetContentOffset(forProposedContentOffset:)` and clamping.
    func offsetAfterBatch(from origin: Point, anchor: (newPath: IndexPath, oldFrame: Rect)?, edge: _LeadingEdge) -> Point {
        let layout = collectionViewLayout
        var proposed = origin
        if let anchor, let frame = layout.layoutAttributesForItem(at: anchor.newPath)?.frame {
            proposed.y += frame.minY - anchor.oldFrame.minY
            // Flipped, the anchor keeps its leading (right) edge in place.
            proposed.x += layout.isFlippedHorizontally ? frame.maxX - anchor.oldFrame.maxX : frame.minX - anchor.oldFrame.minX
        } else {
            proposed = offset(atLeadingEdge: edge)
        }
        return clamped(layout.targetContentOffset(forProposedContentOffset: clamped(proposed)))
    }

    /// The sections (indexes after the update) whose content a batch
    /// changes: those an item is inserted into, deleted from, moved into or
    /// out of, or reloaded in, and inserted and reloaded sections. A section
    /// that is only moved, or whose index changes because others are
    /// inserted or deleted before it, keeps its content and is not named.
    ///
    /// - Complexity: O(*k* + *s*) for *k* update items and *s* sections.
    static func sectionsChanged(by items: [UpdateItem], mapping: BatchIndexMapping) -> [Int] {
        // The mapping knows the sections of the checked operations; items
        // with no action are not checked, and name their sections as they
        // are.
        var others = Set<Int>()
        for index in items.indices where items[index].updateAction == .none {
            let before = items[index].indexPathBeforeUpdate
            let after = items[index].indexPathAfterUpdate
            guard (before ?? after)?.count != 1 else { continue }
            if let before, !before.isEmpty, let section = mapping.sectionAfter(before[0]) { others.insert(section) }
            if let after, !after.isEmpty { others.insert(after[0]) }
        }
        guard !others.isEmpty else { return mapping.sectionsChangedAfter }
        return others.union(mapping.sectionsChangedAfter).sorted()
    }

    /// The first item fully inside the visible area that survives the update,
    /// with its frame before it.
    func scrollAnchor(in before: [LayoutAttributes], bounds: Rect, mapping: BatchIndexMapping) -> (newPath: IndexPath, oldFrame: Rect)? {
        let visible = bounds.inset(by: contentInset)
        for attributes in before where attributes.category == .cell {
            let frame = attributes.frame
            guard frame.minX >= visible.minX, frame.maxX <= visible.maxX, frame.minY >= visible.minY, frame.maxY <= visible.maxY else { continue }
            if let newPath = mapping.indexPathAfter(attributes.indexPath) { return (newPath, frame) }
        }
        return nil
    }

    /// One plan element for every element visible after (in query order),
    /// then for every element only visible before. `flips` says which states
    /// the layout mirrors, for the dispositions.
    func planElements(
        before: [LayoutAttributes],
        after: [LayoutAttributes],
        mapping: BatchIndexMapping,
        items: [UpdateItem],
        idsBefore: [IndexPath: String],
        flips: _FlipWidths = _FlipWidths()
    ) -> [AnimationPlan.Element] {
        let layout = collectionViewLayout
        var beforeByKey: [_ElementKey: LayoutAttributes] = [:]
        for attributes in before { beforeByKey[_ElementKey(attributes)] = attributes }
        // Supplementary views the layout says appear or disappear.
        var supplementaryKinds = Set<String>()
        for attributes in before + after {
            if case let .supplementaryView(kind) = attributes.category { supplementaryKinds.insert(kind) }
        }
        var insertedSupplementary = Set<_ElementKey>()
        var deletedSupplementary = Set<_ElementKey>()
        for kind in supplementaryKinds.sorted() {
            for path in layout.indexPathsToInsertForSupplementaryView(ofKind: kind) {
                insertedSupplementary.insert(_ElementKey(category: .supplementaryView(kind), indexPath: path))
            }
            for path in layout.indexPathsToDeleteForSupplementaryView(ofKind: kind) {
                deletedSupplementary.insert(_ElementKey(category: .supplementaryView(kind), indexPath: path))
            }
        }
        // Reloaded items, moved sections, and sections reloaded by their
        // index after the update (their new cells appear as reloads), in one
        // pass over the update items.
        var reloadedItems = Set<IndexPath>()
        var movedSections = Set<Int>()
        var reloadedSectionsAfter = Set<Int>()
        for item in items {
            switch item.updateAction {
            case .reload:
                guard let path = item.indexPathBeforeUpdate else { continue }
                if path.count == 2 {
                    reloadedItems.insert(path)
                } else if path.count == 1, let section = mapping.sectionAfter(path[0]) {
                    reloadedSectionsAfter.insert(section)
                }
            case .move:
                if let path = item.indexPathBeforeUpdate, path.count == 1 { movedSections.insert(path[0]) }
            case .insert, .delete, .none:
                continue
            }
        }

        func oldKey(of key: _ElementKey) -> _ElementKey? {
            switch key.category {
            case .cell:
                return mapping.indexPathBefore(key.indexPath).map { _ElementKey(category: .cell, indexPath: $0) }
            case .supplementaryView:
                guard let section = mapping.sectionBefore(key.indexPath[0]) else { return nil }
                var path = key.indexPath
                path[0] = section
                return _ElementKey(category: key.category, indexPath: path)
            case .decorationView:
                return key
            }
        }
        func isReloaded(_ old: _ElementKey) -> Bool {
            mapping.isSectionReloaded(old.indexPath[0]) || (old.category == .cell && reloadedItems.contains(old.indexPath))
        }
        func isMoved(_ old: _ElementKey) -> Bool {
            movedSections.contains(old.indexPath[0]) || (old.category == .cell && mapping.isMoved(old.indexPath))
        }
        func initial(_ key: _ElementKey) -> LayoutAttributes? {
            switch key.category {
            case .cell: return layout.initialLayoutAttributesForAppearingItem(at: key.indexPath)
            case let .supplementaryView(kind): return layout.initialLayoutAttributesForAppearingSupplementaryElement(ofKind: kind, at: key.indexPath)
            case let .decorationView(kind): return layout.initialLayoutAttributesForAppearingDecorationElement(ofKind: kind, at: key.indexPath)
            }
        }
        func final(_ key: _ElementKey) -> LayoutAttributes? {
            switch key.category {
            case .cell: return layout.finalLayoutAttributesForDisappearingItem(at: key.indexPath)
            case let .supplementaryView(kind): return layout.finalLayoutAttributesForDisappearingSupplementaryElement(ofKind: kind, at: key.indexPath)
            case let .decorationView(kind): return layout.finalLayoutAttributesForDisappearingDecorationElement(ofKind: kind, at: key.indexPath)
            }
        }
        func current(_ key: _ElementKey) -> LayoutAttributes? {
            switch key.category {
            case .cell: return layout.layoutAttributesForItem(at: key.indexPath)
            case let .supplementaryView(kind): return layout.layoutAttributesForSupplementaryView(ofKind: kind, at: key.indexPath)
            case let .decorationView(kind): return layout.layoutAttributesForDecorationView(ofKind: kind, at: key.indexPath)
            }
        }
        func id(before old: IndexPath?, after new: IndexPath?, category: ElementCategory) -> String? {
            guard category == .cell, let dataSource else { return nil }
            if let new { return dataSource.collectionView(self, itemIdentifierAt: dataSourceIndexPath(forPresentedIndexPath: new)) }
            return old.flatMap { idsBefore[$0] }
        }

        var elements: [AnimationPlan.Element] = []
        var seenBefore = Set<_ElementKey>()
        let placeholder = ViewIdentity(reuseIdentifier: "", instance: -1)
        for attributes in after {
            let key = _ElementKey(attributes)
            // A header or footer the layout says appears names nothing
            // before, even in a section that stays.
            var old = oldKey(of: key)
            if insertedSupplementary.contains(key), old.flatMap({ beforeByKey[$0] }) == nil { old = nil }
            let disposition: AnimationPlan.Disposition
            let from: LayoutAttributes
            if let old, let previous = beforeByKey[old] {
                seenBefore.insert(old)
                from = previous
            } else {
                from = initial(key) ?? { var start = attributes; start.alpha = 0; return start }()
            }
            if insertedSupplementary.contains(key), old.flatMap({ beforeByKey[$0] }) == nil {
                disposition = .insert
            } else if let old {
                if isReloaded(old) {
                    disposition = .reload
                } else if isMoved(old) {
                    disposition = .move
                } else {
                    disposition = flips.settled(from: from, to: attributes)
                }
            } else {
                disposition = key.category == .cell && reloadedSectionsAfter.contains(key.indexPath[0]) ? .reload : .insert
            }
            elements.append(AnimationPlan.Element(
                category: key.category,
                indexPathBefore: old?.indexPath,
                indexPathAfter: key.indexPath,
                itemID: id(before: old?.indexPath, after: key.indexPath, category: key.category),
                from: from,
                to: attributes,
                disposition: disposition,
                contentChanged: disposition == .reload,
                view: placeholder
            ))
        }
        for attributes in before {
            let key = _ElementKey(attributes)
            guard !seenBefore.contains(key) else { continue }
            // A header, footer or decoration view the layout says
            // disappears, or that the layout no longer has, names nothing
            // after, even in a section that stays.
            var new = Self.key(after: key, mapping)
            if key.category != .cell, let path = new, deletedSupplementary.contains(key) || current(path) == nil { new = nil }
            let disposition: AnimationPlan.Disposition
            var to: LayoutAttributes
            if let new {
                to = final(key) ?? current(new) ?? attributes
                disposition = isReloaded(key) ? .reload : isMoved(key) ? .move : flips.settled(from: attributes, to: to)
            } else {
                to = final(key) ?? { var end = attributes; end.alpha = 0; return end }()
                disposition = key.category == .cell && isReloaded(key) ? .reload : .delete
            }
            to.indexPath = new?.indexPath ?? attributes.indexPath
            elements.append(AnimationPlan.Element(
                category: key.category,
                indexPathBefore: key.indexPath,
                indexPathAfter: new?.indexPath,
                itemID: id(before: key.indexPath, after: new?.indexPath, category: key.category),
                from: attributes,
                to: to,
                disposition: disposition,
                contentChanged: disposition == .reload,
                view: placeholder
            ))
        }
        return elements
    }
}
