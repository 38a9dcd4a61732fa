/// What a `textField` row shows: a title, the text, and how the client's keyboard and
/// autofill should treat it.
public struct TextFieldInput: Hashable, Sendable {
    public var title: String
    /// The text the field holds; always `""` for a secure field, whose value the service
    /// never keeps.
    public var text: String
    public var placeholder: String?
    public var contentType: TextContentType
    /// Whether the client hides what is typed (dots instead of characters): always for a
    /// `password` or `newPassword` field.
    public var secure: Bool
    public var multiline: Bool
    /// The most characters (as Swift counts them) the field accepts.
    public var maxLength: Int?

    public init(
        title: String, text: String, placeholder: String? = nil, contentType: TextContentType = .text,
        secure: Bool? = nil, multiline: Bool = false, maxLength: Int? = nil
    ) {
        self.title = title
        self.text = text
        self.placeholder = placeholder
        self.contentType = contentType
        self.secure = contentType.isSecure(declared: secure)
        self.multiline = multiline
        self.maxLength = maxLength
    }
}

/// What a text field holds, for the client's keyboard and autofill (`UITextContentType`).
public enum TextContentType: String, CaseIterable, Hashable, Sendable {
    case text, name, username, email, password, newPassword, oneTimeCode, phone, url, number, decimal, search

    /// Whether a field of this type is always secure (a definition can make others secure too).
    public var isSecret: Bool { self == .password || self == .newPassword }

    /// Whether a field of this type is secure when its definition or model says `declared`:
    /// `secure` can only add, so a password field is secure whatever it says.
    public func isSecure(declared: Bool?) -> Bool {
        declared == true || isSecret
    }
}
