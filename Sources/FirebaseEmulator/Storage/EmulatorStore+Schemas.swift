extension EmulatorStore {
    /// The schemas of every service, applied in this order.
    public static let allSchemas: [StoreSchema] = [
        MessagingService.schema,
        DatabaseService.schema,
    ]
}
