import TabulaCore

/// The backend's answer to an event's `call`, as the event is decided again with it: what
/// it says, and the catalogue's screens as it was read, for what can be checked only on the
/// state the answer makes.
struct BackendAnswer: Sendable {
    /// The action that called.
    let action: String
    /// The session's revision the call was made at: the items the actions before the call
    /// added take their ids from it, as the backend was sent them.
    let revision: Int
    let answer: CallAnswer
    /// The catalogue's screen with an id, as ``CallAnswerReader`` read the answer.
    let screen: @Sendable (String) -> ScreenDefinition?

    /// Why the answer leads the client to an item that is not there: a `navigate` effect
    /// naming an item its screen's list does not hold at `state`, the state the answer made
    /// (the screen would answer 404 `unknown-item`). An answer may add the item it navigates to.
    func navigationRefusal(at state: SessionState) -> String? {
        for (index, effect) in answer.effects.enumerated() {
            guard case .navigate(let target, let item?) = effect, let screen = screen(target), let list = screen.item else { continue }
            if screen.item(item, in: screen.conformed(state)) == nil {
                return
                    "its effects[\(index)] navigates to the item \"\(item.clippedForDetail)\" of \"\(list)\", which the session's state does not hold once the answer is applied (the screen \"\(target)\" would answer 404 unknown-item)"
            }
        }
        return nil
    }
}
