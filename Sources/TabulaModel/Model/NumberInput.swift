/// What a `slider` or `stepper` row shows: a number within `min`…`max`.
///
/// Values lie on steps counted from `min`: `min + k × step`. A slider's `step` of 0 means
/// continuous; a stepper's step is positive (1 unless a definition says otherwise).
/// A stepper always has a title; a slider's is optional.
public struct NumberInput: Hashable, Sendable {
    public var title: String?
    public var value: Double
    public var min: Double
    public var max: Double
    public var step: Double

    public init(title: String?, value: Double, min: Double, max: Double, step: Double) {
        self.title = title
        self.value = value
        self.min = min
        self.max = max
        self.step = step
    }

    /// Whether `candidate` is within `min`…`max` and on a step, each to 1e-9: a client's
    /// `min + k × step` may miss by a rounding (an edit stores such a value at the bound:
    /// ``RowContent/settled(_:)``).
    public func accepts(_ candidate: Double) -> Bool {
        guard candidate.isFinite, candidate >= min - 1e-9, candidate <= max + 1e-9 else { return false }
        guard step > 0 else { return true }
        let steps = (candidate - min) / step
        return abs(steps - steps.rounded()) * step <= 1e-9
    }

    /// What the control shows for `value`, which a backend or an expression may have put
    /// anywhere: the nearest number within `min`…`max` on a step (the step below `max` when
    /// `max` is not on one), so that sending it back is an edit the row accepts. A value it
    /// accepts already is shown as it is.
    public func shown(_ value: Double) -> Double {
        let bounded = Swift.min(Swift.max(value, min), max)
        guard step > 0, !accepts(bounded) else { return bounded }
        var steps = ((bounded - min) / step).rounded()
        if min + steps * step > max { steps -= 1 }
        let onStep = min + steps * step
        // Without the tail a binary fraction leaves (0.30000000000000004 for 3 × 0.1).
        let tidy = (onStep * 1e9).rounded() / 1e9
        return accepts(tidy) ? tidy : onStep
    }
}
