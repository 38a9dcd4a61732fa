/// The URL schemes an `open` action may give a client: `http`, `https`, `mailto` and `tel`,
/// and those the service is told of (an app's own, such as `myapp`). Anything else (a
/// `javascript:` or `data:` URL that a web client would run, a `file:` URL) is refused: a
/// definition that writes one is a problem; a URL that state makes is refused when its
/// event runs.
public struct URLSchemes: Hashable, Sendable, CustomStringConvertible {
    /// The schemes every service accepts.
    public static let standard: Set<String> = ["http", "https", "mailto", "tel"]

    /// The accepted schemes, lower-cased.
    public let allowed: Set<String>

    /// Schemes no client may be given to open, whatever a service adds: a browser runs a
    /// `javascript:` or `vbscript:` URL as script in the page (which holds the session's
    /// token), and a `data:` one as a page of its own; `file:` reads the device's files.
    public static let refused: Set<String> = ["javascript", "vbscript", "data", "file", "blob"]

    /// The standard schemes and `extra` ones. Throws the first extra that is not a scheme
    /// (RFC 3986: a letter, then letters, digits, `+`, `-` and `.`), or that is refused.
    public init(adding extra: [String] = []) throws(URLSchemeError) {
        var allowed = Self.standard
        for scheme in extra {
            guard Self.isScheme(scheme) else { throw URLSchemeError(scheme: scheme) }
            guard !Self.refused.contains(scheme.lowercased()) else { throw URLSchemeError(scheme: scheme, refused: true) }
            allowed.insert(scheme.lowercased())
        }
        self.allowed = allowed
    }

    /// The standard schemes only.
    public static let standardOnly = URLSchemes(uncheckedAllowed: standard)

    private init(uncheckedAllowed allowed: Set<String>) {
        self.allowed = allowed
    }

    /// The URL's scheme, lower-cased: what comes before its first `:` when that is a scheme;
    /// `nil` for a URL without one (a relative reference).
    public static func scheme(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":") else { return nil }
        let candidate = String(url[..<colon])
        return isScheme(candidate) ? candidate.lowercased() : nil
    }

    /// Whether a client may be given `url` to open: see ``refusal(ofURL:)``.
    public func allows(_ url: String) -> Bool {
        refusal(ofURL: url) == nil
    }

    /// Why a client may not be given `url` to open, or `nil` when it may: it needs a scheme,
    /// an accepted one, and no control character (a NUL or a line break, which a client
    /// written in C or a log would cut or split the URL at).
    public func refusal(ofURL url: String) -> String? {
        guard let scheme = Self.scheme(of: url) else { return Self.noScheme }
        guard allowed.contains(scheme) else { return refusal(of: scheme) }
        return Self.hasControlCharacter(url) ? Self.controlCharacterRefusal : nil
    }

    /// Whether `text` holds a character a URL to open may not (see ``refusal(ofURL:)``).
    static func hasControlCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }

    static let controlCharacterRefusal = "a URL to open holds no control characters (percent-encode them)"

    /// What the constant start of a template says of the URLs it makes: `nil` when it
    /// cannot say (the URL begins with an expression); otherwise the reason such a URL is
    /// refused, or `""` when it is accepted.
    func verdict(onTemplateStarting prefix: String, isWhole: Bool) -> String? {
        if let colon = prefix.firstIndex(of: ":") {
            let candidate = String(prefix[..<colon])
            guard Self.isScheme(candidate) else { return Self.noScheme }
            return allowed.contains(candidate.lowercased()) ? "" : refusal(of: candidate.lowercased())
        }
        // No colon yet: a character that cannot be in a scheme means there is none.
        if !prefix.isEmpty, !prefix.unicodeScalars.allSatisfy(Self.isSchemeCharacter) || !Self.isLetter(prefix.unicodeScalars.first) {
            return Self.noScheme
        }
        return isWhole ? Self.noScheme : nil
    }

    /// Why a URL of `scheme` is refused.
    public func refusal(of scheme: String) -> String {
        "the URL scheme \"\(scheme)\" is not one a client may be given to open: \(description) (add an app's own with --open-url-schemes)"
    }

    static let noScheme = "a URL to open needs a scheme, such as https:"

    public var description: String { allowed.sorted().joined(separator: ", ") }

    static func isScheme(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, isLetter(first) else { return false }
        return text.unicodeScalars.allSatisfy(isSchemeCharacter)
    }

    private static func isLetter(_ scalar: Unicode.Scalar?) -> Bool {
        guard let scalar else { return false }
        return ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    private static func isSchemeCharacter(_ scalar: Unicode.Scalar) -> Bool {
        isLetter(scalar) || ("0"..."9").contains(scalar) || scalar == "+" || scalar == "-" || scalar == "."
    }
}

/// An `--open-url-schemes` entry that is not a URL scheme.
public struct URLSchemeError: Error, Hashable, Sendable, CustomStringConvertible {
    public let scheme: String
    /// A scheme, but one no client may be given (``URLSchemes/refused``).
    public let refused: Bool

    public init(scheme: String, refused: Bool = false) {
        self.scheme = scheme
        self.refused = refused
    }

    public var description: String {
        refused
            ? "\"\(scheme)\" URLs run or read something on the client instead of opening a place: no client may be given one"
            : "\"\(scheme)\" is not a URL scheme: a letter, then letters, digits, +, - and . (such as myapp)"
    }
}
