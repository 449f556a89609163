// Handlers log through `context.logger`, a swift-log `Logger`; authors get its API with
// CloudFunctions, without a dependency of their own on swift-log.
@_exported import Logging
