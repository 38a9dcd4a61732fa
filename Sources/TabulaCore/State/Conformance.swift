/// How a definition reads a state saved under any version of the definitions: each key it
/// declares as stored, or its default when the state lacks the key (declared since) or
/// holds it as another type (retyped since). Keys it does not declare are left as they are.
extension ScreenDefinition {
    /// `state` as this definition reads it.
    public func conformed(_ state: SessionState) -> SessionState {
        conforming(state).state
    }

    /// ``conformed(_:)``, and whether a key had to take its default.
    ///
    /// Checking costs a dictionary lookup per declared key, and an event reads its state
    /// several times (reduce, then render from the previous screen): the result remembers
    /// that it conforms to this definition (`SessionState.conformsTo`), so that reading it
    /// again, or a state that `reduce` made from it, costs no lookup. The event benchmark
    /// (`Scripts/bench`, switch events) is what this is for.
    func conforming(_ state: SessionState) -> (state: SessionState, replaced: Bool) {
        if state.conformsTo == document.fingerprint { return (state, false) }
        var result = state
        var replaced = false
        for (key, declaration) in declarations where !declaration.type.admits(state.values[key]) {
            result.values[key] = declaration.defaultValue
            replaced = true
        }
        result.conformsTo = document.fingerprint
        return (result, replaced)
    }
}

extension SessionState {
    /// Records that the values conform to `definition`: for `reduce`, whose actions store
    /// values of the declared types only.
    mutating func markConforming(to definition: ScreenDefinition) {
        conformsTo = definition.document.fingerprint
    }
}
