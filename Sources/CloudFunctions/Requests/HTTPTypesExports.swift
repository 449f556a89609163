// Request functions speak in swift-http-types' currency types; authors get them with CloudFunctions.
@_exported import struct HTTPTypes.HTTPField
@_exported import struct HTTPTypes.HTTPFields
@_exported import struct HTTPTypes.HTTPRequest
@_exported import struct HTTPTypes.HTTPResponse
