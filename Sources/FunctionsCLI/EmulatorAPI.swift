import CloudFunctions
import Foundation
import FirebaseHTTP

/// A running emulator, as the CLI's commands call it: admin requests (`Bearer owner`) whose
/// failures become one clear line.
struct EmulatorAPI: Sendable {
    /// A 2xx answer.
    struct Answer: Sendable {
        /// The headers, with lower-cased names.
        var headers: [String: String]
        /// The body.
        var body: Data

        /// The body as JSON; `null` when empty.
        func json() throws -> JSONValue { body.isEmpty ? .null : try JSONValue(parsing: body) }
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
        do {
            let answer = try await AdminHTTP(baseURL: base).send(method, path, query: query, json: json,
                headers: headers, timeout: timeout)
            return Answer(headers: answer.headers, body: answer.body)
        } catch let error as AdminHTTPError {
            throw CLIError("\(method) \(path) failed (HTTP \(error.status)): "
                + error.message.trimmingCharacters(in: .whitespacesAndNewlines))
        } catch {
            throw unreachable(error)
        }
    }

    /// Opens a server-sent event stream (`Accept: text/event-stream`) that stays open until the
    /// emulator closes it; anything but 200 throws a ``CLIError`` with the service's message.
    func openStream(_ path: String, query: [URLQueryItem] = []) async throws -> HTTPExchange.StreamedResponse {
        var components = URLComponents(url: base, resolvingAgainstBaseURL: false)!
        components.path = path
        if !query.isEmpty { components.queryItems = query }
        let response: HTTPExchange.StreamedResponse
        do {
            response = try await HTTPExchange.stream("GET", components.url!,
                headers: [("Authorization", "Bearer owner"), ("Accept", "text/event-stream")],
                timeout: .seconds(10 * 365 * 86_400))
        } catch {
            throw unreachable(error)
        }
        guard response.status == 200 else {
            let body = try? JSONValue(parsing: await response.collect(upTo: 64 * 1024))
            throw CLIError("GET \(path) failed (HTTP \(response.status)): "
                + (body?["error"]?["message"]?.stringValue ?? "no message"))
        }
        return response
    }

    private func unreachable(_ error: any Error) -> CLIError {
        CLIError("cannot reach the emulator at \(base.absoluteString) "
            + "(start it with `functions emulators:start`): \(error.localizedDescription)")
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
    try? FileHandle.standardError.write(contentsOf: Data("› \(text)\n".utf8))
}
