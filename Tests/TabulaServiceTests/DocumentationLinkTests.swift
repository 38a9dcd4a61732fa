import Foundation
import TabulaTestSupport
import Testing

/// A Markdown file of the repository, read the way the documentation tests need: code
/// blocks set apart, inline code spans, headings' anchors and relative links.
struct MarkdownFile {
    /// The path from the repository's root, such as `docs/api.md`.
    let path: String
    let text: String

    init(_ path: String) throws {
        self.path = path
        text = try String(contentsOf: repositoryRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// The pages under `docs/`, by name.
    static func docsPages() throws -> [MarkdownFile] {
        let names = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("docs").path)
        return try names.filter { $0.hasSuffix(".md") }.sorted().map { try MarkdownFile("docs/\($0)") }
    }

    /// Every page of the documentation: the README, `docs/*.md` and the benchmarks' README.
    static func documentation() throws -> [MarkdownFile] {
        try [MarkdownFile("README.md")] + docsPages() + [MarkdownFile("Benchmarks/README.md")]
    }

    /// The lines outside fenced code blocks.
    var proseLines: [Substring] {
        var lines: [Substring] = []
        var inBlock = false
        for line in text.split(separator: "\n") {
            if line.hasPrefix("```") {
                inBlock.toggle()
            } else if !inBlock {
                lines.append(line)
            }
        }
        return lines
    }

    /// Inline code spans outside code blocks (single backticks, on one line).
    var inlineCodeSpans: [String] {
        proseLines.flatMap { line in
            line.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 1 }.map { String($0.element) }
        }
    }

    /// Inline code spans that are curl commands.
    var inlineCurlCommands: [String] { inlineCodeSpans.filter { $0.hasPrefix("curl -") } }

    /// The anchors GitHub gives the headings, `-1`, `-2`, … added to repeated ones.
    var anchors: Set<String> {
        var seen: [String: Int] = [:]
        var anchors: Set<String> = []
        for line in proseLines {
            let level = line.prefix { $0 == "#" }.count
            guard (1...6).contains(level), line.dropFirst(level).first == " " else { continue }
            let anchor = Self.anchor(of: String(line.dropFirst(level + 1)))
            let count = seen[anchor, default: 0]
            anchors.insert(count == 0 ? anchor : "\(anchor)-\(count)")
            seen[anchor] = count + 1
        }
        return anchors
    }

    /// GitHub's anchor for a heading: lowercase, spaces to `-`, punctuation other than `-`
    /// and `_` dropped.
    static func anchor(of heading: String) -> String {
        var anchor = ""
        for character in heading.trimmingCharacters(in: .whitespaces).lowercased() {
            if character == " " {
                anchor.append("-")
            } else if character.isLetter || character.isNumber || character == "-" || character == "_" {
                anchor.append(character)
            }
        }
        return anchor
    }

    /// The targets of links outside code, `[text](target)`, that are not absolute URLs.
    var relativeLinks: [String] {
        var links: [String] = []
        for line in proseLines {
            // Code spans are not links: keep only the text between them.
            let prose = line.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 0 }.map(\.element).joined()
            var rest = prose[...]
            while let open = rest.range(of: "](") {
                let target = rest[open.upperBound...].prefix { $0 != ")" && $0 != " " }
                rest = rest[open.upperBound...]
                if !["http://", "https://", "mailto:"].contains(where: { target.hasPrefix($0) }) {
                    links.append(String(target))
                }
            }
        }
        return links
    }

    /// What is wrong with a relative link of this file: a missing file, or a fragment that
    /// names no heading of its file. Nil when the link is good.
    func problem(with link: String) throws -> String? {
        let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let file = String(parts[0])
        let fragment = parts.count > 1 ? String(parts[1]) : ""
        var target = self
        if !file.isEmpty {
            let directory = path.split(separator: "/").dropLast().joined(separator: "/")
            let resolved = repositoryRoot.appendingPathComponent(directory.isEmpty ? file : "\(directory)/\(file)").standardized
            let relative = String(resolved.path.dropFirst(repositoryRoot.standardized.path.count + 1))
            guard FileManager.default.fileExists(atPath: resolved.path) else { return "\(path): \(link): no file \(relative)" }
            guard !fragment.isEmpty else { return nil }
            guard relative.hasSuffix(".md") else { return "\(path): \(link): a fragment of a file that is not Markdown" }
            target = try MarkdownFile(relative)
        }
        if !fragment.isEmpty, !target.anchors.contains(fragment) {
            return "\(path): \(link): no heading #\(fragment) in \(target.path)"
        }
        return nil
    }
}

/// Every relative link of the documentation leads somewhere.
@Suite struct DocumentationLinkTests {
    @Test func everyRelativeLinkNamesAFileAndHeadingThatExist() throws {
        let pages = try MarkdownFile.documentation()
        #expect(pages.count >= 3)
        var checked = 0
        for page in pages {
            for link in page.relativeLinks {
                checked += 1
                let problem = try page.problem(with: link)
                #expect(problem == nil, "\(problem ?? "")")
            }
        }
        #expect(checked > 10)
    }

    @Test func anchorsFollowGitHub() {
        #expect(MarkdownFile.anchor(of: "Hardening defaults, and why") == "hardening-defaults-and-why")
        #expect(MarkdownFile.anchor(of: "`tabula diff`") == "tabula-diff")
        #expect(MarkdownFile.anchor(of: "Known limitations (libmicrohttpd 0.9.75)") == "known-limitations-libmicrohttpd-0975")
        #expect(MarkdownFile.anchor(of: "Checking definitions: `tabula validate`") == "checking-definitions-tabula-validate")
        #expect(MarkdownFile.anchor(of: "The load generator's share") == "the-load-generators-share")
    }

    @Test func brokenLinksAreFound() throws {
        let readme = try MarkdownFile("README.md")
        #expect(try readme.problem(with: "docs/api.md#errors") == nil)
        #expect(try readme.problem(with: "#walkthrough") == nil)
        #expect(try readme.problem(with: "docs/nowhere.md") != nil)
        #expect(try readme.problem(with: "docs/api.md#nowhere") != nil)
        #expect(try readme.problem(with: "#nowhere") != nil)
        let page = try MarkdownFile("docs/api.md")
        #expect(try page.problem(with: "../README.md#walkthrough") == nil)
        #expect(try page.problem(with: "operations.md#retention") == nil)
    }
}
