extension StringProtocol {
    /// Whether the text holds an ASCII control character (U+0000–U+001F, U+007F): what an
    /// `eventId`, an `Idempotency-Key` and a log line may not carry as it is.
    var hasASCIIControlCharacter: Bool {
        utf8.contains { $0 < 0x20 || $0 == 0x7F }
    }
}
