import CloudFunctions
import Foundation

/// A dotenv file of a functions package (`.env`, `.env.<projectId>`, `.env.local`,
/// `.secret.local`), read with the Firebase CLI's rules:
///
/// - `KEY=value`, optionally after `export `; spaces around `=` and the value are dropped.
/// - An unquoted value ends at `#` (a comment) or the end of the line.
/// - A single-quoted value is taken as written; a double-quoted one turns `\n`, `\r`, `\t`,
///   `\v`, `\\`, `\'` and `\"` into the characters. Quoted values may span lines.
/// - Blank lines and lines starting with `#` are skipped; any other line is an error.
/// - Keys are uppercase letters, digits and `_`, not a key or prefix the platform reserves.
///
/// Errors name the file and line: `functions/.env:3: Key PORT is reserved for internal use.`
struct EnvironmentFile {
    /// One `KEY=value` line.
    struct Entry: Equatable {
        var key: String
        var value: String
        /// The line the entry starts on, from 1.
        var line: Int
    }

    /// The entries, in file order (a later one of the same key wins).
    var entries: [Entry] = []

    /// Reads `file`; `nil` when it does not exist. Errors quote a bad line unless the file
    /// holds `secrets`.
    ///
    /// - Throws: ``CLIError`` naming the first bad line.
    static func read(_ file: URL, shownAs path: String, secrets: Bool = false) throws -> EnvironmentFile? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        guard let data = FileManager.default.contents(atPath: file.path) else { throw CLIError("cannot read \(path)") }
        return try EnvironmentFile(text: String(decoding: data, as: UTF8.self), path: path, secrets: secrets)
    }

    /// Parses `text`; errors quote a bad line unless it holds `secrets`.
    ///
    /// - Throws: ``CLIError`` naming the first bad line.
    init(text: String, path: String, secrets: Bool = false) throws {
        var text = text
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        let characters = Array(text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n"))
        var index = 0
        var line = 1
        func skip(_ allowed: (Character) -> Bool) {
            while index < characters.count, allowed(characters[index]) { index += 1 }
        }
        func restOfLine() -> String {
            let start = index
            skip { $0 != "\n" }
            return String(characters[start..<index])
        }
        while index < characters.count {
            let lineStart = index
            skip { $0 == " " || $0 == "\t" || $0 == "\u{0B}" || $0 == "\u{0C}" }
            if index == characters.count { break }
            if characters[index] == "\n" {
                index += 1
                line += 1
                continue
            }
            if characters[index] == "#" {
                _ = restOfLine()
                continue
            }
            let entryLine = line
            func invalid() -> CLIError {
                index = lineStart
                let line = restOfLine().trimmingCharacters(in: .whitespaces)
                return CLIError("\(path):\(entryLine): not a KEY=value line" + (secrets ? " (or a quote left open)" : ": \(line)"))
            }
            // The key, after an optional `export `.
            var keyStart = index
            if characters[index...].starts(with: "export"), index + 6 < characters.count,
                characters[index + 6] == " " || characters[index + 6] == "\t"
            {
                index += 6
                skip { $0 == " " || $0 == "\t" }
                keyStart = index
            }
            skip { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." || $0 == "/" }
            let key = String(characters[keyStart..<index])
            skip { $0 == " " || $0 == "\t" }
            guard !key.isEmpty, index < characters.count, characters[index] == "=" else { throw invalid() }
            index += 1
            skip { $0 == " " || $0 == "\t" || $0 == "\u{0B}" || $0 == "\u{0C}" }
            var value: String
            if index < characters.count, characters[index] == "'" || characters[index] == "\"" {
                let quote = characters[index]
                let opening = index + 1
                // The closing quote: `\` before a quote escapes it, unless that leaves the value
                // open (`"C:\\"`), as the Firebase CLI's pattern backtracks to read it.
                guard let closing = Self.closingQuote(quote, in: characters, from: opening, escapes: true)
                    ?? Self.closingQuote(quote, in: characters, from: opening, escapes: false)
                else { throw invalid() }
                let raw = characters[opening..<closing]
                line += raw.filter { $0 == "\n" }.count
                index = closing + 1
                value = String(raw)
                if quote == "\"" { value = Self.unescaped(value) }
                // After the closing quote: only spaces and a comment.
                skip { $0 == " " || $0 == "\t" }
                if index < characters.count, characters[index] != "\n", characters[index] != "#" { throw invalid() }
                _ = restOfLine()
            } else {
                let start = index
                skip { $0 != "\n" && $0 != "#" }
                value = String(characters[start..<index]).trimmingCharacters(in: .whitespaces)
                _ = restOfLine()
            }
            if let problem = ParamSpec.problem(withKey: key) { throw CLIError("\(path):\(entryLine): \(problem)") }
            entries.append(Entry(key: key, value: value, line: entryLine))
        }
    }

    /// Where the quote opened before `start` closes, `nil` when it does not.
    private static func closingQuote(_ quote: Character, in characters: [Character], from start: Int, escapes: Bool) -> Int? {
        var index = start
        while index < characters.count {
            if escapes, characters[index] == "\\", index + 1 < characters.count, characters[index + 1] == quote {
                index += 2
                continue
            }
            if characters[index] == quote { return index }
            index += 1
        }
        return nil
    }

    /// The entries as a dictionary (the last of a key wins).
    var values: [String: String] {
        Dictionary(entries.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    private static func unescaped(_ text: String) -> String {
        var result = ""
        var characters = text.makeIterator()
        while let character = characters.next() {
            guard character == "\\" else {
                result.append(character)
                continue
            }
            guard let next = characters.next() else {
                result.append(character)
                break
            }
            switch next {
            case "n": result.append("\n")
            case "r": result.append("\r")
            case "t": result.append("\t")
            case "v": result.append("\u{0B}")
            case "\\", "'", "\"": result.append(next)
            default: result += "\\\(next)"
            }
        }
        return result
    }
}
