import CloudFunctions
import FirebaseEmulator
import Foundation
import HTTPTypes
import Hummingbird

/// The page an e-mail action link opens, `/emulator/action?mode=…&oobCode=…&apiKey=…`, as
/// Firebase's Auth emulator serves it, and as a small web page for a browser:
///
/// - `resetPassword`: a form for the new password (`POST /emulator/action`); a script may
///   instead add `&newPassword=…` to the link, as with Firebase's emulator.
/// - `verifyEmail`, `verifyAndChangeEmail`: opening the link applies the code.
/// - `signIn`: with a `continueUrl`, a redirect to it with the link's parameters, where the app
///   calls `signInWithEmailLink`; without one, a form that asks for the address (a script adds
///   `&email=…`) and signs in.
///
/// A code made with `canHandleCodeInApp` and a `continueUrl` goes to the app the same way, for
/// every mode. When done, the page redirects (303) to the `continueUrl` the code was made with
/// (never one the request names), or says so. Browsers
/// (`Accept: text/html`) get HTML; other callers get `{"authEmulator": {"success"|"error": …}}`.
/// A code that cannot be used (`INVALID_OOB_CODE`, `EXPIRED_OOB_CODE`, another mode's) is a 400.
struct AuthActionRoutes {
    let server: EmulatorServer

    var service: AuthService { server.emulator.auth }

    func add(to router: Router<EmulatorRequestContext>) {
        router.get("emulator/action") { request, _ in
            await answer(request, fields: Self.fields(of: request.uri.queryParameters), submitted: false)
        }
        router.post("emulator/action") { request, _ in
            var request = request
            let body = try await request.bodyData(limit: server.configuration.maxBodySize)
            let fields = AuthService.formFields(String(decoding: body, as: UTF8.self))
            return await answer(request, fields: fields, submitted: true)
        }
    }

    /// What a page is: a redirect, a message, a form (with the link's fields to post back), or a failure.
    private enum Outcome {
        case redirect(String)
        case done(String, email: String?)
        case form(title: String, text: String, field: (name: String, label: String, type: String),
            hidden: [String: String])
        case failed(String, status: HTTPResponse.Status = .badRequest, code: String? = nil)
    }

    private func answer(_ request: Request, fields: [String: String], submitted: Bool) async -> Response {
        let html = request.headers[.accept]?.contains("text/html") ?? false
        return Self.render(await outcome(fields, submitted: submitted), html: html)
    }

    private func outcome(_ fields: [String: String], submitted: Bool) async -> Outcome {
        guard let apiKey = fields["apiKey"], !apiKey.isEmpty else { return .failed("missing apiKey query parameter") }
        guard let code = fields["oobCode"], !code.isEmpty else { return .failed("missing oobCode query parameter") }
        let mode = fields["mode"] ?? ""
        let linkFields = fields.filter { ["mode", "oobCode", "apiKey", "lang", "tenantId"].contains($0.key) }
        do {
            let stored = try service.checkOobCode(code)
            // Where to go next is the code's own (checked when it was made), never the request's.
            let continueUrl = stored.settings.continueUrl
            func finished(_ message: String, email: String?) -> Outcome {
                continueUrl.map { .redirect($0) } ?? .done(message, email: email)
            }
            guard stored.kind.mode == mode else {
                return .failed(mode.isEmpty || AuthOobCode.Kind.allCases.allSatisfy { $0.mode != mode }
                    ? "Invalid mode" : "This link is for another action.", code: "INVALID_OOB_CODE")
            }
            if !submitted, let target = stored.settings.opensApp ? continueUrl : nil {
                return .redirect(Self.url(target, adding: linkFields))
            }
            switch stored.kind {
            case .passwordReset:
                guard let newPassword = fields["newPassword"], !newPassword.isEmpty, newPassword != "NEW_PASSWORD_HERE" else {
                    return .form(title: "Reset your password", text: "Choose a new password for \(stored.email).",
                        field: (name: "newPassword", label: "New password", type: "password"), hidden: linkFields)
                }
                let used = try await service.resetPassword(code: code, newPassword: newPassword)
                return finished("The password has been successfully updated.", email: used.email)
            case .verifyEmail, .verifyAndChangeEmail:
                let (user, _) = try await service.applyOobCode(code)
                return finished(stored.kind == .verifyEmail ? "The email has been successfully verified."
                    : "The email has been successfully changed.", email: user.email)
            case .emailSignIn:
                if let continueUrl, !submitted {
                    return .redirect(Self.url(continueUrl, adding: linkFields))
                }
                guard let email = fields["email"] else {
                    return .form(title: "Sign in", text: "Type the e-mail address the link was sent to.",
                        field: (name: "email", label: "E-mail", type: "email"), hidden: linkFields)
                }
                let (user, _, isNewUser) = try await service.signInWithEmailLink(email: email, code: code, idToken: nil)
                return .done("Signed in as \(user.email ?? "") (uid \(user.localId)\(isNewUser ? ", a new user" : "")).",
                    email: user.email)
            }
        } catch let error as ServiceError {
            return .failed(Self.sentence(for: error.message), code: error.message)
        } catch {
            return .failed("\(error)", status: .internalServerError)
        }
    }

    /// A reader's sentence for an Identity Toolkit error.
    private static func sentence(for message: String) -> String {
        switch message {
        case "INVALID_OOB_CODE": "This link is not valid: it was already used, or it was never made."
        case "EXPIRED_OOB_CODE": "This link has expired: ask for a new one."
        case "USER_DISABLED": "This account is disabled."
        default: message
        }
    }

    /// The request's fields by name (the last of a repeated name).
    private static func fields(of parameters: Parameters) -> [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in parameters { fields[String(name)] = String(value) }
        return fields
    }

    /// `target` with `parameters` added to its query, in name order.
    private static func url(_ target: String, adding parameters: [String: String]) -> String {
        let query = parameters.sorted { $0.key < $1.key }.map { "\(AuthOobCode.escaped($0.key))=\(AuthOobCode.escaped($0.value))" }
        guard !query.isEmpty else { return target }
        let (base, fragment) = target.firstIndex(of: "#").map { (String(target[..<$0]), String(target[$0...])) } ?? (target, "")
        return base + (base.contains("?") ? "&" : "?") + query.joined(separator: "&") + fragment
    }

    private static func render(_ outcome: Outcome, html: Bool) -> Response {
        switch outcome {
        case .redirect(let location):
            return Response(status: .seeOther, headers: [.location: location])
        case .done(let message, let email):
            var body: [String: JSONValue] = ["success": .string(message)]
            body["email"] = email.map(JSONValue.string)
            return html ? page("Done", "<p role=\"status\">\(escaped(message))</p>") : .json(["authEmulator": .object(body)])
        case .form(let title, let text, let field, let hidden):
            let inputs = hidden.sorted { $0.key < $1.key }.map { name, value in
                "<input type=\"hidden\" name=\"\(escaped(name))\" value=\"\(escaped(value))\">"
            }
            let form = """
                <p>\(escaped(text))</p>
                <form method="post" action="/emulator/action">
                \(inputs.joined(separator: "\n"))
                <label for="\(field.name)">\(escaped(field.label))</label>
                <input id="\(field.name)" name="\(field.name)" type="\(field.type)" value="" required autofocus>
                <button type="submit">\(escaped(title))</button>
                </form>
                """
            return html ? page(title, form) : .json(["authEmulator": [
                "error": .string("missing \(field.name) query parameter"),
                "instructions": .string("Open this link in a browser, or add &\(field.name)=… to it."),
            ]], status: .badRequest)
        case .failed(let message, let status, let code):
            var body: [String: JSONValue] = ["error": .string(message)]
            body["code"] = code.map(JSONValue.string)
            return html ? page("This link cannot be used", "<p role=\"alert\">\(escaped(message))</p>", status: status)
                : .json(["authEmulator": .object(body)], status: status)
        }
    }

    /// A small HTML page.
    private static func page(_ title: String, _ content: String, status: HTTPResponse.Status = .ok) -> Response {
        let text = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <title>\(escaped(title)) · Auth emulator</title>
            <style>body{font:16px system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem}
            input{display:block;margin:.5rem 0 1rem;padding:.4rem;width:100%}button{padding:.4rem 1rem}</style>
            </head><body><h1>\(escaped(title))</h1>
            \(content)
            </body></html>
            """
        return Response(status: status, headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: .init(string: text)))
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
