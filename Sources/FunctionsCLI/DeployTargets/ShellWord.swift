import Foundation

/// Text written as one word of a POSIX shell command line (the deploy script, the Dockerfile's
/// `RUN` lines).
enum ShellWord {
    /// `text` as is when it holds nothing the shell reads specially, else in single quotes.
    static func quoted(_ text: String) -> String {
        let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=,@+-")
        if !text.isEmpty, text.allSatisfy(safe.contains) { return text }
        return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
