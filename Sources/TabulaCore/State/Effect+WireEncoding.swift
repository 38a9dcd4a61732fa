extension JSONWriter {
    /// `{"type": "navigate", "screen": ID, "item": ID?}`, `{"type": "back"}` or
    /// `{"type": "openURL", "url": URL}`.
    package mutating func write(_ effect: Effect) {
        beginObject()
        switch effect {
        case .navigate(let screen, let item):
            if let item { key("item"); string(item) }
            key("screen"); string(screen)
            key("type"); string("navigate")
        case .back:
            key("type"); string("back")
        case .openURL(let url):
            key("type"); string("openURL")
            key("url"); string(url)
        }
        endObject()
    }
}
