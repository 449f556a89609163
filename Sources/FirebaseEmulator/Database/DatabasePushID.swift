import Foundation
import CloudFunctions

/// Generates Realtime Database push ids: 20 characters that sort by creation time.
///
/// Characters 1–8 are the millisecond timestamp in base 64 (most significant first), 9–20 are
/// 12 random base-64 digits. Within one millisecond the previous random part is incremented
/// by one instead, so ids from one generator are strictly increasing. A clock that goes
/// backwards is treated as the same millisecond; if the random part would overflow, the
/// timestamp part is advanced by one millisecond.
package struct DatabasePushID: Sendable, Hashable {
    /// The 64 symbols, in ASCII order.
    public static let alphabet = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"

    /// The largest timestamp eight base-64 digits hold.
    public static let maximumTimestamp: Int64 = (1 << 48) - 1

    private static let symbols = Array(alphabet.utf8)

    private var lastTimestamp: Int64 = -1
    private var lastRandom: [UInt8] = []

    /// A generator that has not produced an id yet.
    public init() {}

    /// The next id for time `now`.
    ///
    /// - Parameter generator: the source of the 12 random digits.
    public mutating func next(now: Date, using generator: inout some RandomNumberGenerator) -> String {
        next(milliseconds: Self.milliseconds(of: now), using: &generator)
    }

    /// The next id for a timestamp in milliseconds since 1970 (clamped to `0...maximumTimestamp`).
    public mutating func next(milliseconds: Int64, using generator: inout some RandomNumberGenerator) -> String {
        var timestamp = min(max(milliseconds, 0), Self.maximumTimestamp)
        if timestamp <= lastTimestamp, lastRandom.count == 12 {
            timestamp = lastTimestamp
            if !Self.increment(&lastRandom), timestamp < Self.maximumTimestamp {
                timestamp += 1
                lastRandom = Self.randomDigits(using: &generator)
            }
        } else {
            lastRandom = Self.randomDigits(using: &generator)
        }
        lastTimestamp = timestamp
        var bytes = [UInt8](repeating: 0, count: 20)
        var remaining = timestamp
        for index in stride(from: 7, through: 0, by: -1) {
            bytes[index] = Self.symbols[Int(remaining & 63)]
            remaining >>= 6
        }
        for (offset, digit) in lastRandom.enumerated() {
            bytes[8 + offset] = Self.symbols[Int(digit)]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The millisecond timestamp encoded in a push id; `nil` when `id` is not one.
    public static func timestamp(of id: String) -> Int64? {
        let bytes = Array(id.utf8)
        guard bytes.count == 20 else { return nil }
        var timestamp: Int64 = 0
        for (index, byte) in bytes.enumerated() {
            guard let digit = symbols.firstIndex(of: byte) else { return nil }
            if index < 8 { timestamp = timestamp << 6 | Int64(digit) }
        }
        return timestamp
    }

    /// Milliseconds since 1970 for `date`, clamped to what an id can hold.
    static func milliseconds(of date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard value.isFinite, value > 0 else { return 0 }
        return value >= Double(maximumTimestamp) ? maximumTimestamp : Int64(value)
    }

    private static func randomDigits(using generator: inout some RandomNumberGenerator) -> [UInt8] {
        (0..<12).map { _ in UInt8.random(in: 0..<64, using: &generator) }
    }

    /// Adds one to the base-64 digits; returns `false` (digits all zero) when it overflows.
    private static func increment(_ digits: inout [UInt8]) -> Bool {
        for index in digits.indices.reversed() {
            if digits[index] < 63 {
                digits[index] += 1
                return true
            }
            digits[index] = 0
        }
        return false
    }
}
