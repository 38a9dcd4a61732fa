import TabulaCore
import TabulaSamples

/// Properties of the pure pipeline (reduce, render, diff, apply, wire) that must hold for
/// every input; shared by the targets whose inputs reach it.
public enum PipelineChecks {
    /// A screen as a client receives it: it keeps the identity rules, and its wire form
    /// decodes back to it.
    public static func checkRenderedScreen(_ screen: Screen, _ what: @autoclosure () -> String) {
        do {
            try screen.validate()
        } catch {
            invariant(false, "\(what()) breaks the identity rules (\(error)): \(wireText(screen))")
        }
        let decoded = try? Screen(jsonBytes: screen.jsonBytes)
        invariant(decoded == screen, "\(what()) does not decode from its wire form: \(wireText(screen))")
    }

    /// `diff(old, new).apply(to: old) == new` (revisions aside), the change set keeps the
    /// batch-update rules, `diff(a, a)` is empty, and the wire form decodes back to it. The
    /// diff takes screens that break the identity rules too; `applyChecked` refuses to take a
    /// screen that keeps them to one that does not (the service renders none), and only that.
    public static func checkDiff(from old: Screen, to new: Screen) {
        let changes = diff(old: old, new: new)
        var expected = new
        expected.revision = old.revision
        // Written only when a check fails: encoding three documents per input would halve the speed.
        let context = { "old: \(wireText(old))\nnew: \(wireText(new))\nchanges: \(String(decoding: changes.jsonBytes, as: UTF8.self))" }
        let breaksTheRules = (try? old.validate()) != nil && (try? new.validate()) == nil
        do {
            let applied = try changes.applyChecked(to: old)
            invariant(!breaksTheRules, "diff(old, new) applied to a screen that keeps the identity rules leaves one that does not\n\(context())")
            invariant(applied == expected, "apply(diff(old, new), old) != new\n\(context())\napplied: \(wireText(applied))")
        } catch {
            invariant(breaksTheRules, "diff(old, new) does not apply to old: \(error)\n\(context())")
        }
        let violations = BatchUpdateRules.violations(of: changes, from: old, to: new)
        invariant(violations.isEmpty, "the change set breaks the batch-update rules: \(violations.joined(separator: "; "))\n\(context())")
        invariant(diff(old: old, new: old).isEmpty, "diff(a, a) is not empty for a = \(wireText(old))")
        let decoded = try? ChangeSet(jsonBytes: changes.jsonBytes)
        invariant(decoded == changes, "the change set does not decode from its wire form\n\(context())")
    }

    /// One event's trip as the service makes it: reduce the state, render the new screen
    /// (afresh and incrementally, which must agree) and diff it against `screen`, which is
    /// `render(definition, state)`. Returns the new state and screen when the event applies.
    public static func checkEvent(
        _ event: Event, on definition: ScreenDefinition, state: SessionState, screen: Screen
    ) -> (state: SessionState, screen: Screen)? {
        let shownRow = screen.path(ofRow: event.rowID).flatMap { screen.row(at: $0) }
        let next: SessionState
        do {
            (next, _) = try reduce(state, event, definition)
        } catch {
            checkRefusal(error, of: event, shownRow: shownRow)
            return nil
        }
        guard let shownRow else {
            invariant(false, "\(event) applied to a row the screen does not show")
            return nil
        }
        invariant(shownRow.enabled, "\(event) applied to a row that shows disabled")
        switch event {
        case .select: invariant(shownRow.selectable, "\(event) applied to a row that shows not selectable")
        case .delete: invariant(shownRow.deletable, "\(event) applied to a row that shows not deletable")
        case .edit: invariant(shownRow.editable, "\(event) applied to a row that shows not editable")
        case .move: invariant(shownRow.movable, "\(event) applied to a row that shows not movable")
        case .action(_, let action):
            invariant(
                (shownRow.leadingActions + shownRow.trailingActions).contains { $0.id == action },
                "\(event) applied to a row that shows no such swipe action")
        case .setSwitch: break
        }
        let changed = next.values != state.values || next.marks != state.marks
        invariant(
            next.revision == state.revision + (changed ? 1 : 0),
            "\(event) moved the revision from \(state.revision) to \(next.revision) (values or marks changed: \(changed))")
        let fresh = render(definition, next)
        let incremental = render(definition, next, reusing: screen, renderedAt: state)
        invariant(
            incremental == fresh,
            "incremental render differs after \(event)\nfresh: \(wireText(fresh))\nincremental: \(wireText(incremental))")
        checkRenderedScreen(fresh, "screen \(definition.id) after \(event)")
        checkDiff(from: screen, to: fresh)
        return (next, fresh)
    }

    /// A refused event must be refused for the reason the shown row gives: a row on screen
    /// is neither unknown nor hidden, and it is enabled, selectable, deletable and editable
    /// exactly as shown.
    private static func checkRefusal(_ error: EventError, of event: Event, shownRow: Row?) {
        guard let shownRow else { return }
        switch error {
        case .unknownRow, .rowHidden:
            invariant(false, "\(event) on a row the screen shows was refused: \(error)")
        case .rowNotSelectable:
            invariant(!shownRow.selectable, "\(event) refused as not selectable, but the row shows selectable")
        case .rowNotDeletable:
            invariant(!shownRow.deletable, "\(event) refused as not deletable, but the row shows deletable")
        case .rowDisabled:
            invariant(!shownRow.enabled, "\(event) refused as disabled, but the row shows enabled")
        case .rowNotEditable:
            invariant(!shownRow.editable, "\(event) refused as not editable, but the row shows editable")
        case .rowNotMovable:
            invariant(!shownRow.movable, "\(event) refused as not movable, but the row shows movable")
        case .unknownAction(_, let action):
            invariant(
                !(shownRow.leadingActions + shownRow.trailingActions).contains { $0.id == action },
                "\(event) refused as an unknown action, but the row shows it")
        case .rowHasNoSwitch, .invalidValue, .invalidMove, .duplicateItem, .invalidItemID:
            break
        }
    }

    /// A screen's wire form as text, for failure messages.
    public static func wireText(_ screen: Screen) -> String {
        String(decoding: screen.jsonBytes, as: UTF8.self)
    }
}
