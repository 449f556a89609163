import Hummingbird

/// The request context of the emulator's routes.
public struct EmulatorRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    public init(source: Source) {
        coreContext = .init(source: source)
    }

    /// Bodies are limited by ``EmulatorServer/Configuration/maxBodySize`` in the routes.
    public var maxUploadSize: Int { .max }
}
