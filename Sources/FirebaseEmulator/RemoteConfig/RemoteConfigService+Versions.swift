import CloudFunctions
import Foundation

extension RemoteConfigService {
    /// The largest page `listVersions` answers, and its default page size (every kept version).
    public static let maxPageSize = 300

    /// One stored version and its ETag (`GET .../remoteConfig?versionNumber=N`).
    ///
    /// - Throws: `INVALID_ARGUMENT` for a number below 1; `NOT_FOUND` for a version that was never
    ///   published or is no longer kept.
    public func template(
        version versionNumber: Int64, project: String? = nil, namespace: RemoteConfigNamespace = .firebase
    ) throws(ServiceError) -> RemoteConfigTemplateResponse {
        try namespace.requireManaged()
        try Self.requirePositive(versionNumber, name: "versionNumber")
        let project = project ?? self.project
        let template = try Self.storeOperation {
            try store.read { db in
                try RemoteConfigVersionTable.template(
                    db, project: project, namespace: namespace, versionNumber: versionNumber)
            }
        }
        guard let template else { throw Self.versionNotFound(versionNumber) }
        return RemoteConfigTemplateResponse(
            template: template, etag: RemoteConfigETag.template(project: project, versionNumber: versionNumber))
    }

    /// Lists the kept versions, newest first (`GET .../remoteConfig:listVersions`).
    ///
    /// - Parameters:
    ///   - pageSize: 1...300 versions per page; `nil` means 300 (every kept version).
    ///   - pageToken: the `nextPageToken` of the previous page (send the same filters again).
    ///   - endVersionNumber: the newest version to include (inclusive), > 0.
    ///   - startTime: versions updated before it are left out (inclusive bound).
    ///   - endTime: versions updated at or after it are left out (exclusive bound).
    /// - Returns: the page, with `nextPageToken` when more versions match.
    /// - Throws: `INVALID_ARGUMENT` for a page size out of range, an empty or foreign page token, or an
    ///   `endVersionNumber` below 1.
    public func listVersions(
        project: String? = nil,
        namespace: RemoteConfigNamespace = .firebase,
        pageSize: Int? = nil,
        pageToken: String? = nil,
        endVersionNumber: Int64? = nil,
        startTime: Date? = nil,
        endTime: Date? = nil
    ) throws(ServiceError) -> RemoteConfigVersionList {
        try namespace.requireManaged()
        let size = pageSize ?? Self.maxPageSize
        guard (1...Self.maxPageSize).contains(size) else {
            throw ServiceError(.invalidArgument, "pageSize must be a number between 1 and 300 (inclusive).")
        }
        if let endVersionNumber { try Self.requirePositive(endVersionNumber, name: "endVersionNumber") }
        var upTo = endVersionNumber ?? .max
        if let pageToken, !pageToken.isEmpty { upTo = min(upTo, try Self.pageStart(pageToken)) }
        let project = project ?? self.project
        let candidates = try Self.storeOperation {
            try store.read { db in
                try RemoteConfigVersionTable.versions(db, project: project, namespace: namespace, upTo: upTo)
            }
        }
        var page: [TemplateVersion] = []
        for version in candidates {
            let time = version.updateTime ?? .distantPast
            if let startTime, time < startTime { continue }
            if let endTime, time >= endTime { continue }
            if page.count == size {
                let token = Self.pageToken(version.versionNumber)
                return RemoteConfigVersionList(versions: page, nextPageToken: token)
            }
            page.append(version)
        }
        return RemoteConfigVersionList(versions: page)
    }

    /// The opaque token of a page starting at `versionNumber` (inclusive): base64url of `v1:<number>`.
    static func pageToken(_ versionNumber: Int64) -> String {
        Data("v1:\(versionNumber)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func pageStart(_ token: String) throws(ServiceError) -> Int64 {
        var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8),
            text.hasPrefix("v1:"), let number = Int64(text.dropFirst(3)), number > 0
        else {
            throw ServiceError(.invalidArgument, "pageToken is not a token this API returned: '\(token)'")
        }
        return number
    }
}
