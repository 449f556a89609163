extension Duration {
    /// The duration in seconds, as a double; the one conversion every module of the package uses.
    package var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
