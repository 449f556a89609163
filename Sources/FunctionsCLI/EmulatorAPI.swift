import CloudFunctions
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A running emulator, as the CLI's commands call it: admin requests (`Bearer owner`) whose
/// failures become one clear line.
struct EmulatorAPI: Sendable {
    /// An answer with a 2xx status.
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: Data

        /// The body as JSON (`null` when it is empty).
        func json() throws -> JSONValue {
            body.isEmpty ? .null : try JSONValue(parsing: body)
        }
    }

    let base: URL
    let project: String

    /// Sends a request; anything but a 2xx answer throws a ``CLIError`` with the service's message.
    @discardableResult
    func send(
        _ method: String,
        _ path: String,
        query: [URLQueryItem] = [],
        json: JSONValue? = nil,
        headers: [String: String] = [:],
        timeout: TimeInterval = 60
    ) async throws -> Answer {
        var components = URLComponents(url: base, resolvingAgainstBaseURL: false)!
        components.path = (components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path) + path
        if !query.isEmpty { components.queryItems = query }
        guard let url = components.url else { throw CLIError("cannot form a URL from \(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = timeout
        request.setValue("Bearer owner", forHTTPHeaderField: "Authorization")
        if let json {
            request.httpBody = json.serializedData()
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw CLIError("cannot reach the emulator at \(base.absoluteString) "
                + "(start it with `functions emulators:start`): \(error.localizedDescription)")
        }
        let http = response as? HTTPURLResponse
        let status = http?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            let json = try? JSONValue(parsing: data)
            let message = json?["error"]?["message"]?.stringValue ?? json?["error"]?.stringValue
                ?? String(decoding: data.prefix(500), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw CLIError("\(method) \(path) failed (HTTP \(status)): \(message)")
        }
        var headers: [String: String] = [:]
        for (name, value) in http?.allHeaderFields ?? [:] {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return Answer(status: status, headers: headers, body: data)
    }

    /// `/emulator/v1/projects/{project}` + `rest`.
    func emulatorPath(_ rest: String) -> String { "/emulator/v1/projects/\(project)\(rest)" }

    /// `/v1/projects/{project}` + `rest`.
    func projectPath(_ rest: String) -> String { "/v1/projects/\(project)\(rest)" }
}

/// Reads a JSON document from a file path, or from standard input when the path is `-`.
func readJSONFile(_ path: String) throws -> JSONValue {
    let data: Data
    do {
        data = path == "-"
            ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
        throw CLIError("cannot read \(path): \(error.localizedDescription)")
    }
    do {
        return try JSONValue(parsing: data)
    } catch {
        throw CLIError("\(path) is not valid JSON: \(error)")
    }
}

/// Prints JSON, indented, to standard output.
func printJSON(_ json: JSONValue) {
    print(json.indented())
}

/// Writes a progress or status line to standard error.
func status(_ text: String) {
    FileHandle.standardError.write(Data("› \(text)\n".utf8))
}
