import Testing

@testable import TabulaService

/// Which `Content-Type` values an event body may carry (the HTTP suites check the 415 answer).
@Suite struct MediaTypeTests {
    @Test(arguments: [
        ("application/json", true),
        ("Application/JSON", true),
        ("  application/json", true),
        ("application/json \t", true),
        ("application/json; charset=utf-8", true),
        ("application/json\t ;charset=UTF-8", true),
        ("application/json;", true),
        ("", false),
        ("application/jso", false),
        ("application/jsonx", false),
        ("application/json x", false),
        ("application/json, text/plain", false),
        ("application/json-patch+json", false),
        ("text/plain", false),
        ("xapplication/json", false),
        ("application\u{2F}json", true),
        ("applicatión/json", false),
    ])
    func isJSONMediaType(value: String, accepted: Bool) {
        #expect(APIContext.isJSONMediaType(value) == accepted)
    }
}
