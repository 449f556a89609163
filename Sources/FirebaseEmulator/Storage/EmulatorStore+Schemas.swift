extension EmulatorStore {
    /// The schemas of every service, applied in this order.
    package static let allSchemas: [StoreSchema] = [
        RemoteConfigVersionTable.schema,
        MessagingService.schema,
        AuthUserStorage.schema,
        AnalyticsStorage.schema,
        DatabaseService.schema,
    ]
}
