import Foundation
import HTTPServer
import Logging
import NIOCore
import PushEngine
import RegistryCore
import Store

/// `POST /v1/devices/import`: NDJSON registrations of any size, read as they arrive and imported
/// 1,000 to a transaction, set-based (`DeviceStore.importBatch`: records as they are, without
/// rotation or the per-user cap). The per-line results go to a temporary file (so memory stays flat for a
/// million lines) and are streamed back once the body is consumed: `{"line", "status", "result"}`
/// or `{"line", "status", "error"}`, in line order; blank lines get no result. If the database
/// fails midway the request fails with 503; lines before it are committed (and perhaps those of
/// the batch running beside it), and a rerun is harmless, since registering is idempotent.
struct DeviceImport: Sendable {
    static let batchSize = 1000
    static let maxLineBytes = 64 * 1024

    let devices: DeviceStore
    let events: RegistryEvents
    let logger: Logger

    func run(_ body: RequestBodyStream) async throws -> HTTPResponse {
        let results = try await ResultFile()
        // Batches are read and parsed while earlier ones commit, up to `importParallelism` at once
        // (PostgreSQL's insert work is most of an import, and one backend uses one core). Results
        // land in line order, and a batch naming a token that a running batch names waits for it
        // to commit first, so a repeated token is applied in line order.
        var running: [(tokens: Set<String>, lines: Task<ByteBuffer, any Error>)] = []
        do {
            var window: [Item] = []
            var lines = LineSplitter(maxLineBytes: Self.maxLineBytes)
            func start(_ window: [Item]) async throws {
                let tokens = Set(window.compactMap { try? $0.item.get().token.value })
                while let first = running.first,
                    running.count >= devices.importParallelism
                        || running.contains(where: { !$0.tokens.isDisjoint(with: tokens) })
                {
                    running.removeFirst()
                    try await results.append(try await first.lines.value)
                }
                running.append((tokens, Task { [self] in try await importBatch(window) }))
            }
            for try await chunk in body {
                for line in lines.feed(chunk) {
                    window.append(Self.parse(line))
                    guard window.count >= Self.batchSize else { continue }
                    try await start(window)
                    window.removeAll(keepingCapacity: true)
                }
            }
            window += lines.finish().map(Self.parse)
            if !window.isEmpty { try await start(window) }
            for batch in running { try await results.append(try await batch.lines.value) }
            return HTTPResponse(
                status: .ok, headers: ["Content-Type": NDJSON.contentType], body: .stream(results.stream()))
        } catch {
            for batch in running { batch.lines.cancel() }
            for batch in running { _ = try? await batch.lines.value }
            throw error
        }
    }

    typealias Item = (line: Int, item: Result<DeviceRegistration, Problem>)

    private static func parse(_ line: LineSplitter.Line) -> Item {
        guard !line.tooLong else {
            return (line.number, .failure(ProblemMapping.problem(for: .importLineTooLong(maxBytes: maxLineBytes))))
        }
        do {
            let record = try line.bytes.withUnsafeBytes { try RequestReading.json($0) }
            return (line.number, .success(try DeviceRegistration.parse(Self.droppingServerFields(record))))
        } catch let failure as APIFailure {
            return (line.number, .failure(ProblemMapping.problem(for: failure)))
        } catch let errors as ValidationErrors {
            return (line.number, .failure(ProblemMapping.validation(errors.errors)))
        } catch {
            return (line.number, .failure(ProblemMapping.problem(for: .importLineUnreadable)))
        }
    }

    /// What an export line carries besides the registration: set by the server, so accepted and
    /// ignored here (an imported device counts as seen at import time). An export imports as is.
    static let serverFields: Set<String> = [
        "created_at", "updated_at", "last_seen_at", "disabled_reason", "disabled_at",
    ]

    private static func droppingServerFields(_ record: JSONValue) -> JSONValue {
        guard case .object(let fields) = record else { return record }
        return .object(fields.filter { !serverFields.contains($0.key) })
    }

    /// Imports one batch; returns its result lines.
    private func importBatch(_ window: [Item]) async throws -> ByteBuffer {
        let valid = window.compactMap { try? $0.item.get() }
        let outcomes = try await devices.importBatch(valid)
        guard outcomes.count == valid.count else {
            throw RegistryError.internal(reason: "import answered \(outcomes.count) of \(valid.count) records")
        }
        var answered = 0
        var lines = ByteBuffer()
        for (number, item) in window {
            switch item {
            case .failure(let problem):
                lines.writeImmutableBuffer(
                    try NDJSON.lines([ResultLine(line: number, status: problem.status, result: nil, error: problem)]))
            case .success(let registration):
                defer { answered += 1 }
                switch outcomes[answered] {
                case .success(let result):
                    events.registered(result, provider: registration.provider, type: registration.type)
                    ResultLine.writeSuccess(line: number, result: result, to: &lines)
                case .failure(let error):
                    let problem = ProblemMapping.problem(for: error, logger: logger)
                    lines.writeImmutableBuffer(
                        try NDJSON.lines([ResultLine(line: number, status: problem.status, result: nil, error: problem)]
                        ))
                }
            }
        }
        return lines
    }

    struct ResultLine: Encodable {
        let line: Int
        let status: Int
        let result: String?
        let error: Problem?

        /// The line JSONEncoder writes for a registered record (sorted keys, no error), written
        /// directly: nearly every line of an import is one, and encoding them was a sixth of its CPU.
        static func writeSuccess(line: Int, result: RegistrationResult, to buffer: inout ByteBuffer) {
            buffer.writeStaticString(#"{"line":"#)
            buffer.writeString(String(line))
            buffer.writeStaticString(#","result":""#)
            buffer.writeString(result.rawValue)
            buffer.writeStaticString(result == .created ? #"","status":201}"# : #"","status":200}"#)
            buffer.writeStaticString("\n")
        }
    }
}
