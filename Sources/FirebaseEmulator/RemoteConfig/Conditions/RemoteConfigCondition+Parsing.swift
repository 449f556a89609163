import CloudFunctions

extension RemoteConfigCondition {
    /// Parses the expression.
    ///
    /// - Throws: `ServiceError.invalidArgument` naming this condition and the error's position.
    package func parsedExpression() throws(ServiceError) -> RemoteConfigConditionExpression {
        try RemoteConfigConditionExpression.parse(expression, conditionName: name)
    }
}
