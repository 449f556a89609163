import CloudFunctions

extension TemplateVersion {
    /// The version keeping only what a publish request may set: the description.
    package var publishable: TemplateVersion {
        TemplateVersion(versionNumber: 0, description: description)
    }
}
