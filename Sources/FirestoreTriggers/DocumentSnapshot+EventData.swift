import CloudFunctions
import Foundation
import SwiftProtobuf

extension DocumentSnapshot {
    /// The snapshot of a document in an event's data.
    init(_ document: Google_Events_Cloud_Firestore_V1_Document, path: String) {
        self.init(
            path: path,
            fields: document.fields.mapValues(FirestoreValue.init),
            createTime: document.hasCreateTime ? document.createTime.date : nil,
            updateTime: document.hasUpdateTime ? document.updateTime.date : nil
        )
    }
}

extension FirestoreValue {
    /// A value in an event's data; a value with no type set (which Firestore never sends) is null.
    init(_ value: Google_Events_Cloud_Firestore_V1_Value) {
        switch value.valueType {
        case .nullValue, nil: self = .null
        case .booleanValue(let value): self = .bool(value)
        case .integerValue(let value): self = .integer(value)
        case .doubleValue(let value): self = .double(value)
        case .timestampValue(let value): self = .timestamp(value.date)
        case .stringValue(let value): self = .string(value)
        case .bytesValue(let value): self = .bytes(value)
        case .referenceValue(let value): self = .reference(value)
        case .geoPointValue(let point): self = .geoPoint(FirestoreGeoPoint(latitude: point.latitude, longitude: point.longitude))
        case .arrayValue(let array): self = .array(array.values.map(FirestoreValue.init))
        case .mapValue(let map): self = .map(map.fields.mapValues(FirestoreValue.init))
        }
    }
}
