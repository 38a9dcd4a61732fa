import TabulaCore
import TabulaPlatform

/// Prints JSON bytes on standard output, compact or indented.
func printJSON(_ bytes: [UInt8], pretty: Bool) {
    if pretty, let value = try? JSONParser().parse(bytes) {
        print(value.prettyText())
    } else {
        print(String(decoding: bytes, as: UTF8.self))
    }
}

func printToStandardError(_ text: String) {
    let line = Array((text + "\n").utf8)
    line.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(2, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            if written <= 0 { return }
            offset += written
        }
    }
}
