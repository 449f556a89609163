import Foundation
import CloudFunctions

/// Splits a condition expression into tokens, each with its 1-based character position.
struct RemoteConfigConditionLexer {
    /// A token's kind and content.
    enum Kind: Hashable {
        case identifier(String)
        case string(String)
        case number(String)
        case symbol(String)
        case end
    }

    /// A token and where it starts.
    struct Token: Hashable {
        var kind: Kind
        /// 1-based character position of the token's first character.
        var position: Int
        /// The token as written, for error messages.
        var text: String
    }

    private static let twoCharacterSymbols: Set<String> = ["&&", "||", "==", "!=", "<=", ">="]
    private static let oneCharacterSymbols: Set<Character> = ["<", ">", "(", ")", "[", "]", ",", ".", "!"]

    /// Tokenizes `expression`; the last token is always ``Kind/end``.
    ///
    /// - Throws: a syntax error for an unterminated string or a character outside the language.
    static func tokenize(_ expression: String) throws(RemoteConfigConditionSyntaxError) -> [Token] {
        let characters = Array(expression)
        var tokens: [Token] = []
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let start = index
            if character.isWhitespace {
                index += 1
                continue
            }
            if character == "'" || character == "\"" {
                let value = try readString(characters, &index)
                tokens.append(Token(kind: .string(value), position: start + 1, text: String(characters[start..<index])))
            } else if isDigit(character)
                || (character == "-" && index + 1 < characters.count
                    && isDigit(characters[index + 1]))
            {
                index += 1
                while index < characters.count, isDigit(characters[index]) || characters[index] == "." {
                    index += 1
                }
                let text = String(characters[start..<index])
                tokens.append(Token(kind: .number(text), position: start + 1, text: text))
            } else if isIdentifierStart(character) {
                while index < characters.count, isIdentifierStart(characters[index]) || isDigit(characters[index]) {
                    index += 1
                }
                let text = String(characters[start..<index])
                tokens.append(Token(kind: .identifier(text), position: start + 1, text: text))
            } else if index + 1 < characters.count,
                twoCharacterSymbols.contains(String(characters[index...index + 1]))
            {
                let text = String(characters[index...index + 1])
                index += 2
                tokens.append(Token(kind: .symbol(text), position: start + 1, text: text))
            } else if oneCharacterSymbols.contains(character) {
                index += 1
                tokens.append(Token(kind: .symbol(String(character)), position: start + 1, text: String(character)))
            } else {
                throw RemoteConfigConditionSyntaxError(
                    position: start + 1, reason: "unexpected character '\(character)'"
                )
            }
        }
        tokens.append(Token(kind: .end, position: characters.count + 1, text: ""))
        return tokens
    }

    private static func readString(
        _ characters: [Character], _ index: inout Int
    ) throws(RemoteConfigConditionSyntaxError) -> String {
        let quote = characters[index]
        let start = index
        index += 1
        var value = ""
        while index < characters.count {
            let character = characters[index]
            if character == quote {
                index += 1
                return value
            }
            // Only `\'` (the quote itself) is an escape: other backslashes stay, for regular expressions.
            if character == "\\", index + 1 < characters.count, characters[index + 1] == quote {
                value.append(quote)
                index += 2
                continue
            }
            value.append(character)
            index += 1
        }
        throw RemoteConfigConditionSyntaxError(position: start + 1, reason: "unterminated string")
    }

    private static func isDigit(_ character: Character) -> Bool {
        character.isASCII && character.isNumber
    }

    private static func isIdentifierStart(_ character: Character) -> Bool {
        character == "_" || (character.isASCII && character.isLetter)
    }
}
