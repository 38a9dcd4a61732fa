import Foundation

/// Whether `condition` holds within `seconds`, asked again every few milliseconds: how a
/// test waits for something another thread or process does, instead of sleeping for a time
/// it guesses is long enough. Returns as soon as the condition holds.
public func eventually(within seconds: Double = 5, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while true {
        if try condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        usleep(2_000)
    }
}
