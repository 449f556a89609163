import Foundation

/// The container image of a functions package: a multi-stage Dockerfile that builds the
/// executable in the official Swift image with the static Swift standard library and runs it
/// on a slim Ubuntu as a non-root user, with the worker as entrypoint.
struct ContainerImage {
    /// The folder sent to `docker build`: the package and every local (path) dependency it has.
    let context: URL
    /// The package, inside ``context``.
    let package: URL
    /// The executable product.
    let product: String
    /// The image the build stage uses, e.g. `swift:6.3-noble`.
    let builderImage: String

    /// The package's folder relative to the build context (`.` when they are the same).
    var packagePath: String {
        let relative = package.standardizedFileURL.path.dropFirst(context.standardizedFileURL.path.count)
            .drop { $0 == "/" }
        return relative.isEmpty ? "." : String(relative)
    }

    /// The build context for a package with local dependencies at `dependencyPaths`: the
    /// deepest folder holding all of them.
    static func context(package: URL, dependencyPaths: [URL]) -> URL {
        var common = package.standardizedFileURL.pathComponents
        for path in dependencyPaths {
            let components = path.standardizedFileURL.pathComponents
            common = Array(zip(common, components).prefix { $0 == $1 }.map(\.0))
        }
        return URL(fileURLWithPath: NSString.path(withComponents: common.isEmpty ? ["/"] : common))
    }

    /// The Dockerfile.
    func dockerfile(generatedBy command: String) -> String {
        // The build folder (a cache between image builds) lies outside the package, so that
        // neither the mount nor the command holds the package's path unquoted.
        let swiftBuild = "swift build -c release --scratch-path /cache/build --package-path \(ShellWord.quoted(packagePath))"
        return """
            # syntax=docker/dockerfile:1
            # The container image of the functions package '\(packagePath)' (product \(product)).
            # Written by `\(command)`; build it from the folder that holds the package
            # and its local dependencies:
            #   docker build -f Dockerfile -t IMAGE \(context.path)

            FROM \(builderImage) AS build
            WORKDIR /src
            COPY . .
            # The build folder is a cache between image builds; the binary (and any resource
            # bundles) are copied out of it in the same step.
            RUN --mount=type=cache,target=/cache/build \\
                \(swiftBuild) --product \(product) --static-swift-stdlib \\
                && mkdir -p /staging \\
                && bin="$(\(swiftBuild) --show-bin-path)" \\
                && cp "$bin/\(product)" /staging/ \\
                && find "$bin" -maxdepth 1 -name '*.resources' -exec cp -R {} /staging/ \\;

            FROM ubuntu:noble
            # Certificates and libcurl for HTTPS calls from handlers (Foundation's networking).
            RUN apt-get update \\
                && apt-get install -y --no-install-recommends ca-certificates libcurl4 tzdata \\
                && rm -rf /var/lib/apt/lists/*
            RUN useradd --system --user-group --no-create-home --home-dir /app functions
            WORKDIR /app
            COPY --from=build --chown=functions:functions /staging/ /app/
            USER functions:functions
            # Cloud Run and Knative set PORT (8080 here too) and K_SERVICE; FUNCTION_TARGET names
            # the function each service runs.
            ENV PORT=8080
            EXPOSE 8080
            ENTRYPOINT ["/app/\(product)"]

            """
    }

    /// What `docker build` leaves out of the context (read by BuildKit as `Dockerfile.dockerignore`).
    static let dockerignore = """
        **/.build
        **/.swiftpm
        **/.git
        **/.functions
        **/*.xcodeproj

        """
}
