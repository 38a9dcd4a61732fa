import ArgumentParser
import TabulaPlatform

/// Resolves a setting from its command-line option, else its environment variable, else
/// its default; an unreadable environment value is an error that names the variable.
enum EnvironmentSetting {
    static func value(_ name: String) -> String? {
        guard let raw = getenv(name) else { return nil }
        let text = String(cString: raw)
        return text.isEmpty ? nil : text
    }

    static func resolve<Value: LosslessStringConvertible>(
        _ option: Value?, _ variable: String, default fallback: Value
    ) throws -> Value {
        if let option { return option }
        guard let text = value(variable) else { return fallback }
        guard let parsed = Value(text) else {
            throw ValidationError("environment variable \(variable)=\"\(text)\" is not a valid value")
        }
        return parsed
    }

    /// A flag: on when given on the command line, else as the environment variable says
    /// (1, true, yes or on; 0, false, no or off), else off.
    static func flag(_ option: Bool, _ variable: String) throws -> Bool {
        if option { return true }
        guard let text = value(variable) else { return false }
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ValidationError("environment variable \(variable)=\"\(text)\" is not 1, true, yes, on, 0, false, no or off")
        }
    }
}
