import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One connection to the realtime stream (`POST .../namespaces/firebase:streamFetchInvalidations`):
/// the template versions it announces, read as the iOS SDK reads them (the first `{`…`}` of the
/// data received so far, `latestTemplateVersionNumber` as a string or a number).
struct RemoteConfigRealtimeStream {
    let client: RemoteConfigClient
    let lastKnownVersion: Int64

    /// The announced versions, until the server ends the stream or the task is cancelled.
    func versions() -> AsyncThrowingStream<Int64, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Int64.self)
        let receiver = Receiver(continuation: continuation)
        let session = URLSession(configuration: .ephemeral, delegate: receiver, delegateQueue: nil)
        var components = URLComponents(url: client.backend, resolvingAgainstBaseURL: false)!
        components.path += "/v1/projects/\(client.project)/namespaces/firebase:streamFetchInvalidations"
        components.queryItems = [URLQueryItem(name: "key", value: client.apiKey)]
        var request = URLRequest(url: components.url!)
        request.httpMethod = "POST"
        request.timeoutInterval = 330
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let body: [String: Any] = [
            "project": client.project, "namespace": "firebase", "appId": client.installation.appID,
            "appInstanceId": client.installation.installationID, "lastKnownVersionNumber": String(lastKnownVersion),
        ]
        request.httpBody = try? JSONSerialization.data(withJSONObject: body)
        let task = session.dataTask(with: request)
        continuation.onTermination = { _ in
            task.cancel()
            session.invalidateAndCancel()
        }
        task.resume()
        return stream
    }

    /// Turns the received bytes into versions.
    final class Receiver: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        let continuation: AsyncThrowingStream<Int64, any Error>.Continuation
        /// Touched only on the session's serial delegate queue.
        var buffer = Data()
        var status = 0
        var errorBody = Data()

        init(continuation: AsyncThrowingStream<Int64, any Error>.Continuation) {
            self.continuation = continuation
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            status = (response as? HTTPURLResponse)?.statusCode ?? 0
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            guard status == 200 else {
                errorBody.append(data)
                return
            }
            buffer.append(data)
            while let open = buffer.firstIndex(of: UInt8(ascii: "{")),
                let close = buffer[open...].firstIndex(of: UInt8(ascii: "}"))
            {
                let message = buffer[open...close]
                buffer = Data(buffer[(close + 1)...])
                guard let json = try? JSONSerialization.jsonObject(with: Data(message)) as? [String: Any] else {
                    continuation.finish(throwing: RemoteConfigError.transport("the stream sent a malformed message"))
                    return
                }
                let latest = json["latestTemplateVersionNumber"]
                if let version = (latest as? String).flatMap({ Int64($0) }) ?? (latest as? NSNumber)?.int64Value {
                    continuation.yield(version)
                }
            }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            if status != 0, status != 200 {
                let message = String(decoding: errorBody.prefix(300), as: UTF8.self)
                continuation.finish(throwing: RemoteConfigError.fetchFailed(status: status, message: message))
            } else if let error {
                continuation.finish(throwing: RemoteConfigError.transport(error.localizedDescription))
            } else {
                continuation.finish()
            }
            session.finishTasksAndInvalidate()
        }
    }
}
