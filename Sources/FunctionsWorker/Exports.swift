// A function file needs one import: `import FunctionsWorker` brings the authoring API, the
// built-in plugins, the Firestore triggers and the CloudEvents types with it.
@_exported import CloudEvents
@_exported import CloudFunctions
@_exported import FunctionsBuiltins
@_exported import FirestoreTriggers
