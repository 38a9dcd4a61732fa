import TabulaPlatform

extension ICULocaleRules {
    /// Hands ICU's code and constant data back to the page cache once the catalogue's rules
    /// are built (``ResidentPages``): loading ICU, building plural rules and number
    /// formatters runs code and reads data that rendering never touches again. Call it while
    /// no other thread can be loading ICU (before serving).
    public static func releaseLoadingPages() {
        // Reads the mappings rather than ICU.shared, which would load ICU where nothing has.
        ResidentPages.release { $0.contains("/libicu") }
    }
}
