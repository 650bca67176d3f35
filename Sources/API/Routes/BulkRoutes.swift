import Foundation
import HTTPServer
import PushEngine
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
                var results = [DeviceJSON.BatchItem?](repeating: nil, count: items.count)
                var valid: [(index: Int, registration: DeviceRegistration)] = []
                for (index, item) in items.enumerated() {
                    do throws(ValidationErrors) {
                        valid.append((index, try DeviceRegistration.parse(item)))
                    } catch {
                        results[index] = .failed(index: index, ProblemMapping.validation(error.errors))
                    }
                }
                let outcomes = try await devices.registerBatch(valid.map(\.registration))
                for ((index, _), outcome) in zip(valid, outcomes) {
                    switch outcome {
                    case .success(let outcome):
                        events.registered(outcome)
                        results[index] = .registered(index: index, outcome)
                    case .failure(let error):
                        results[index] = .failed(index: index, ProblemMapping.problem(for: error, logger: logger))
                    }
                }
                return ConsistencyToken.answer(
                    .json(encoded: try DeviceJSON.batchBody(results.compactMap { $0 })), after: devices)
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

/// Moving a whole registry in or out: NDJSON, streamed both ways.
extension APIContext {
    func addTransferRoutes(to router: inout Router) {
        router.add(
            .GET, "/v1/devices/export",
            handler: guarded(.admin) { request, _ in
                let query = try RequestReading.query(request, allowed: ["consistency"])
                let export = DeviceExport(
                    devices: devices, strong: try RequestReading.strongConsistency(query),
                    after: try ConsistencyToken.sent(in: request), logger: logger)
                return HTTPResponse(
                    status: .ok, headers: ["Content-Type": NDJSON.contentType], body: .stream(export.stream()))
            })

        router.add(
            .POST, "/v1/devices/import", body: .streamed(contentTypes: [NDJSON.contentType, "application/jsonl"]),
            handler: guarded(.admin) { request, _ in
                _ = try RequestReading.query(request, allowed: [])
                guard let body = request.bodyStream else {
                    throw APIFailure.missingBody(detail: "send NDJSON registrations")
                }
                return try await DeviceImport(devices: devices, events: events, logger: logger).run(body)
            })
    }
}
