import NIOHTTP1
import Testing

@testable import HTTPServer

@Suite struct RouterTests {
    private func router() -> Router {
        var router = Router()
        router.add(.GET, "/v1/devices/{token}") { _ in .empty(.ok) }
        router.add(.POST, "/v1/devices/batch") { _ in .empty(.ok) }
        router.add(.GET, "/v1/users/{user_id}/devices/{token}") { _ in .empty(.ok) }
        router.add(.DELETE, "/v1/users/{user_id}/devices/{token}") { _ in .empty(.ok) }
        router.add(.GET, "/v1/users/{user_id}/devices") { _ in .empty(.ok) }
        router.add(.GET, "/") { _ in .empty(.ok) }
        return router
    }

    private func found(_ match: RouteMatch) -> (template: String, method: HTTPMethod, parameters: [String: String])? {
        if case .found(let route, let parameters) = match { return (route.template, route.method, parameters) }
        return nil
    }

    @Test func extractsParameters() {
        let hit = found(router().match(method: .GET, path: "/v1/users/u1/devices/tok"))
        #expect(hit?.template == "/v1/users/{user_id}/devices/{token}")
        #expect(hit?.parameters == ["user_id": "u1", "token": "tok"])
    }

    @Test func literalBeatsParameterRegardlessOfRegistrationOrder() {
        var router = Router()
        router.add(.POST, "/v1/devices/{token}") { _ in .empty(.ok) }
        router.add(.POST, "/v1/devices/batch") { _ in .empty(.ok) }
        #expect(found(router.match(method: .POST, path: "/v1/devices/batch"))?.template == "/v1/devices/batch")
        #expect(found(router.match(method: .POST, path: "/v1/devices/abc"))?.parameters == ["token": "abc"])
    }

    @Test func aLiteralPathAnswersOnlyItsOwnMethods() {
        // GET /v1/devices/batch is not a lookup of the token "batch": the literal path owns it.
        guard case .methodNotAllowed(let allowed) = router().match(method: .GET, path: "/v1/devices/batch") else {
            Issue.record("expected 405")
            return
        }
        #expect(allowed == [.POST])
    }

    @Test func percentDecodesEachSegmentAfterSplitting() {
        let hit = found(router().match(method: .GET, path: "/v1/users/a%2Fb/devices/t%20k%2B"))
        #expect(hit?.parameters == ["user_id": "a/b", "token": "t k+"])
    }

    @Test func plusIsNotASpaceInPaths() {
        #expect(found(router().match(method: .GET, path: "/v1/devices/a+b"))?.parameters == ["token": "a+b"])
    }

    @Test(arguments: ["/v1/devices/%zz", "/v1/devices/%4", "/v1/devices/%", "/v1/devices/%C3%28"])
    func invalidPercentEncodingMatchesNothing(path: String) {
        guard case .notFound = router().match(method: .GET, path: path) else {
            Issue.record("expected notFound for \(path)")
            return
        }
    }

    @Test(arguments: ["/v1/users/u1/devices/", "/v1/devices/", "/v1//devices", "/nope", "/v1/users/u1/devices/t/x"])
    func unknownPathsAndTrailingSlashesAreNotFound(path: String) {
        guard case .notFound = router().match(method: .GET, path: path) else {
            Issue.record("expected notFound for \(path)")
            return
        }
    }

    @Test func rootPath() {
        #expect(found(router().match(method: .GET, path: "/"))?.template == "/")
    }

    @Test func wrongMethodListsAllowedMethodsIncludingHEAD() {
        guard case .methodNotAllowed(let allowed) = router().match(method: .PUT, path: "/v1/users/u/devices/t") else {
            Issue.record("expected 405")
            return
        }
        #expect(allowed.map(\.rawValue) == ["GET", "DELETE", "HEAD"])
    }

    @Test func allowListsOnlyTheLiteralPathsMethods() {
        guard case .methodNotAllowed(let allowed) = router().match(method: .TRACE, path: "/v1/devices/batch") else {
            Issue.record("expected 405")
            return
        }
        #expect(allowed.map(\.rawValue) == ["POST"])
    }

    @Test func aParameterNamedLikeNoLiteralStillMatches() {
        #expect(found(router().match(method: .GET, path: "/v1/devices/batches"))?.parameters == ["token": "batches"])
    }

    @Test func headUsesTheGETRoute() {
        let hit = found(router().match(method: .HEAD, path: "/v1/users/u/devices"))
        #expect(hit?.method == .GET)
    }

    @Test func operationsListEveryRoute() {
        let operations = router().operations.map { "\($0.method.rawValue) \($0.template)" }
        #expect(operations.count == 6)
        #expect(operations.contains("POST /v1/devices/batch"))
        #expect(operations.contains("DELETE /v1/users/{user_id}/devices/{token}"))
    }
}

@Suite struct RouteBodyTests {
    @Test func mediaTypeDropsParametersOptionalWhitespaceAndCase() {
        #expect(RouteBody.mediaType(" Application/JSON ; charset=utf-8") == "application/json")
        #expect(RouteBody.mediaType("\tapplication/problem+json\t") == "application/problem+json")
        #expect(RouteBody.mediaType("text/plain") == "text/plain")
        #expect(RouteBody.mediaType(";charset=utf-8") == "")
    }

    @Test func jsonRoutesTakeJSONAndPlusJSONOnly() {
        #expect(RouteBody.json.accepts(contentType: "application/json; charset=utf-8"))
        #expect(RouteBody.json.accepts(contentType: "Application/Merge-Patch+JSON"))
        #expect(!RouteBody.json.accepts(contentType: "text/json") && !RouteBody.json.accepts(contentType: nil))
    }
}
