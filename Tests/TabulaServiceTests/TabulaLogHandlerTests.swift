import Foundation
import Logging
import TabulaTestSupport
import Testing

@testable import TabulaService

@Suite struct TabulaLogHandlerTests {
    /// Text from outside (a backend's answer, a definition) cannot start a line of its own:
    /// its control characters come out as escapes, in the message and in the metadata.
    @Test func controlCharactersInALogLineComeOutEscaped() throws {
        let text = try writtenOut { output in
            let logger = Logger(label: "tabula") { TabulaLogHandler(label: $0, level: .info, output: output) }
            logger.warning(
                "the backend's answer is not valid",
                metadata: ["cause": "https://x/\n2026-11-30T20:00:00+0000 critical tabula: FORGED\r\u{0}\u{1B}[31m\u{7F}\tend"])
            logger.info("plain café")
        }
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(
            lines.first?.hasSuffix(
                #" warning tabula: cause=https://x/\n2026-11-30T20:00:00+0000 critical tabula: FORGED\r\u{0}\u{1B}[31m\u{7F}\tend [TabulaServiceTests] the backend's answer is not valid"#
            ) == true, "\(lines)")
        #expect(lines.last?.hasSuffix(" info tabula: [TabulaServiceTests] plain café") == true, "\(lines)")
    }
}
