extension JSONWriter {
    /// `{"type": "navigate", "screen": ID}` or `{"type": "openURL", "url": URL}`.
    public mutating func write(_ effect: Effect) {
        beginObject()
        switch effect {
        case .navigate(let screen):
            key("screen"); string(screen)
            key("type"); string("navigate")
        case .openURL(let url):
            key("type"); string("openURL")
            key("url"); string(url)
        }
        endObject()
    }
}
