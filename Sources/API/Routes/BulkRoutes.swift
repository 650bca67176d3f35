import Foundation
import HTTPServer
import RegistryCore
import Store

/// Bulk registration: up to 1,000 in one request and one transaction, answered per item.
extension APIContext {
    static let maxBatchItems = 1000

    func addBulkRoutes(to router: inout Router, batchBodyLimit: Int) {
        router.add(
            .POST, "/v1/devices/batch", body: .json, bodyLimit: batchBodyLimit,
            handler: guarded(.devicesWrite) { request, _ in
                _ = try RequestReading.query(request, allowed: [])
                let items = try Self.batchItems(try RequestReading.json(request))
                var results = [BatchItemBody?](repeating: nil, count: items.count)
                var valid: [(index: Int, registration: DeviceRegistration)] = []
                for (index, item) in items.enumerated() {
                    do throws(ValidationErrors) {
                        valid.append((index, try DeviceRegistration.parse(item)))
                    } catch {
                        results[index] = BatchItemBody(index: index, failure: ProblemMapping.validation(error.errors))
                    }
                }
                let outcomes = try await devices.registerBatch(valid.map(\.registration))
                for ((index, _), outcome) in zip(valid, outcomes) {
                    switch outcome {
                    case .success(let outcome):
                        events.registered(outcome)
                        results[index] = BatchItemBody(index: index, outcome: outcome)
                    case .failure(let error):
                        results[index] = BatchItemBody(
                            index: index, failure: ProblemMapping.problem(for: error, logger: logger))
                    }
                }
                return .json(BatchBody(results: results.compactMap { $0 }))
            })
    }

    /// The `devices` array of a batch body: 1–1,000 items, each parsed on its own.
    private static func batchItems(_ body: JSONValue) throws -> [JSONValue] {
        guard case .object(let object) = body else {
            throw RegistryError.validation([
                ValidationError(field: "", message: "the request body must be a JSON object")
            ])
        }
        if let unknown = object.keys.sorted().first(where: { $0 != "devices" }) {
            throw RegistryError.validation([
                ValidationError(field: unknown, message: "unknown field; the body has only devices")
            ])
        }
        guard case .array(let items)? = object["devices"], (1...maxBatchItems).contains(items.count) else {
            throw RegistryError.validation([
                ValidationError(field: "devices", message: "must be an array of 1 to \(maxBatchItems) registrations")
            ])
        }
        return items
    }
}

/// One item's answer in a batch: its index, its status, and the registration or the problem.
struct BatchItemBody: Encodable {
    let index: Int
    let status: Int
    let registration: RegistrationBody?
    let error: Problem?

    init(index: Int, outcome: RegistrationOutcome) {
        self.index = index
        status = outcome.result == .created ? 201 : 200
        registration = RegistrationBody(outcome)
        error = nil
    }

    init(index: Int, failure: Problem) {
        self.index = index
        status = failure.status
        registration = nil
        error = failure
    }

    func encode(to encoder: any Encoder) throws {
        try registration?.encode(to: encoder)  // its fields at the item's top level
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(index, forKey: .index)
        try container.encode(status, forKey: .status)
        try container.encodeIfPresent(error, forKey: .error)
    }
    private enum CodingKeys: String, CodingKey { case index, status, error }
}

struct BatchBody: Encodable { let results: [BatchItemBody] }

/// Moving a whole registry in or out: NDJSON, streamed both ways.
extension APIContext {
    func addTransferRoutes(to router: inout Router) {
        router.add(
            .GET, "/v1/devices/export",
            handler: guarded(.admin) { request, _ in
                let query = try RequestReading.query(request, allowed: ["consistency"])
                let export = DeviceExport(
                    devices: devices, strong: try RequestReading.strongConsistency(query), logger: logger)
                return HTTPResponse(
                    status: .ok, headers: ["Content-Type": NDJSON.contentType], body: .stream(export.stream()))
            })

        router.add(
            .POST, "/v1/devices/import", body: .streamed(contentTypes: [NDJSON.contentType, "application/jsonl"]),
            handler: guarded(.admin) { request, _ in
                _ = try RequestReading.query(request, allowed: [])
                guard let body = request.bodyStream else {
                    throw Problem(status: .badRequest, title: "Missing body", detail: "send NDJSON registrations")
                }
                return try await DeviceImport(devices: devices, events: events, logger: logger).run(body)
            })
    }
}
