import ArgumentParser

/// A failure the command reports as one line on standard error, exiting with status 1.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
