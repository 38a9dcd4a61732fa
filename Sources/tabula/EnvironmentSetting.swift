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
}
