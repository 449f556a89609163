import FirebaseEmulator
import Foundation
import CloudFunctions
import Testing

@Suite("AuthUser")
struct AuthUserTests {
    let user = AuthUser(
        localId: "UUpby3s4spZre6kHsgVSPetzQ8l2", email: "test@nowhere.com", emailVerified: true,
        displayName: "Test", photoURL: "https://example.com/a.png", phoneNumber: "+15555550100",
        createdAt: AuthFixtures.created, lastLoginAt: AuthFixtures.lastLogin,
        validSince: Date(timeIntervalSince1970: 1_590_489_747), customClaims: ["admin": true],
        providerData: [AuthProviderInfo(providerId: "google.com", rawId: "g-1", email: "test@gmail.com")],
        passwordHash: "$2b$04$abcdefghijklmnopqrstuuJ2nb0CSvGMfRkPv0u1XwExbqqfJIH9e",
        passwordUpdatedAt: AuthFixtures.created
    )

    @Test("writes the Identity Toolkit UserInfo wire form")
    func userInfo() throws {
        let info = user.userInfoJSON()
        #expect(info["localId"] == "UUpby3s4spZre6kHsgVSPetzQ8l2")
        #expect(info["createdAt"] == "1590489747123")
        #expect(info["lastLoginAt"] == "1603537200000")
        #expect(info["validSince"] == "1590489747")
        #expect(info["photoUrl"] == "https://example.com/a.png")
        #expect(info["customAttributes"] == #"{"admin":true}"#)
        #expect(info["emailVerified"] == true)
        #expect(info["disabled"] == false)
        #expect(info["passwordUpdatedAt"] == 1_590_489_747_123)
        let hash = try #require(info["passwordHash"]?.stringValue)
        #expect(AuthBase64.decode(hash).map { String(decoding: $0, as: UTF8.self) } == user.passwordHash)
        let providers = try #require(info["providerUserInfo"]?.arrayValue)
        #expect(providers.map { $0["providerId"] } == ["password", "phone", "google.com"])
        #expect(providers[0]["rawId"] == "test@nowhere.com")
        #expect(providers[2]["email"] == "test@gmail.com")
        #expect(user.userInfo(includePasswordHash: false).passwordHash == nil)
        // What the Admin HTTP client reads back from it.
        let read = UserRecord(user.userInfo())
        #expect(read.uid == user.localId && read.email == user.email && read.customClaims == ["admin": true])
        #expect(read.metadata == UserMetadata(creationTime: AuthFixtures.created, lastSignInTime: AuthFixtures.lastLogin))
        #expect(read.tokensValidAfterTime == Date(timeIntervalSince1970: 1_590_489_747))
        #expect(read.providerData.map(\.providerId) == ["password", "phone", "google.com"])
    }

    @Test("leaves absent fields and empty claims out of UserInfo")
    func sparseUserInfo() {
        let info = AuthUser(localId: "u1", createdAt: AuthFixtures.created).userInfoJSON()
        #expect(info["email"] == nil)
        #expect(info["lastLoginAt"] == nil)
        #expect(info["customAttributes"] == nil)
        #expect(info["passwordHash"] == nil)
        #expect(info["providerUserInfo"] == [])
    }

    @Test("is the firebase-functions UserRecord of its events, without hash, salt or validSince")
    func userRecord() throws {
        let record = user.cloudUserRecord
        #expect(record.uid == "UUpby3s4spZre6kHsgVSPetzQ8l2")
        #expect(record.photoURL == "https://example.com/a.png")
        #expect(record.metadata == UserMetadata(creationTime: AuthFixtures.created, lastSignInTime: AuthFixtures.lastLogin))
        #expect(record.customClaims == ["admin": true])
        #expect(record.passwordHash == nil && record.passwordSalt == nil && record.tokensValidAfterTime == nil)
        #expect(record.providerData[0] == UserProviderInfo(uid: "test@nowhere.com", providerId: "password",
            email: "test@nowhere.com", displayName: "Test", photoURL: "https://example.com/a.png"))
        #expect(record.providerData[2] == UserProviderInfo(uid: "g-1", providerId: "google.com", email: "test@gmail.com"))
        let bare = AuthUser(localId: "u1", createdAt: AuthFixtures.created).cloudUserRecord
        #expect(bare == UserRecord(uid: "u1", metadata: UserMetadata(creationTime: AuthFixtures.created)))
    }

    @Test("does not duplicate listed password or phone providers")
    func listedProviders() {
        let listed = AuthUser(
            localId: "u", email: "a@b.c", phoneNumber: "+15555550100", createdAt: AuthFixtures.created,
            providerData: [AuthProviderInfo(providerId: "password", rawId: "a@b.c")], passwordHash: "h"
        )
        #expect(listed.effectiveProviderData.map(\.providerId) == ["phone", "password"])
    }

    @Test("survives a Codable round trip for storage")
    func codable() throws {
        let data = try JSONEncoder().encode(user)
        #expect(try JSONDecoder().decode(AuthUser.self, from: data) == user)
    }

    @Test("is anonymous only without email, phone, password and providers")
    func anonymous() {
        #expect(AuthUser(localId: "a", createdAt: .distantPast).isAnonymous)
        #expect(!user.isAnonymous)
    }

    @Test("generates 28 alphanumeric characters, reproducibly from a seed")
    func generatedIds() {
        var first = SplitMixRandom(seed: 7)
        var second = SplitMixRandom(seed: 7)
        let id = AuthUser.generateLocalId(using: &first)
        #expect(id.count == 28)
        #expect(id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
        #expect(id == AuthUser.generateLocalId(using: &second))
        #expect(id != AuthUser.generateLocalId(using: &first))
    }
}
