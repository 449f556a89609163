/// A point on Earth, in degrees, as Firestore stores geo points.
public struct FirestoreGeoPoint: Sendable, Hashable, Codable {
    /// From -90 to 90.
    public var latitude: Double
    /// From -180 to 180.
    public var longitude: Double

    /// Creates a point.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}
